package io.kaas.storage.recovery;

import io.kaas.storage.StorageException;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.ScannedBatch;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The partition's derivable JSON state — {@code producer-state.snapshot}, {@code txn-index.snapshot},
 * {@code leader-epoch-checkpoint.json}, {@code recovery-checkpoint.json} — rebuilt from the log when a file
 * cannot be read, never fatal. (Indexes are rebuilt by the scan itself; the time index lives in memory.)
 *
 * <ul>
 *   <li>A snapshot covers the whole log, but replay normally starts at the recovery checkpoint: an
 *       unreadable one is rebuilt by replaying every segment from the log start, whatever the checkpoint
 *       says; the caller then writes fresh snapshots before a fresh checkpoint.</li>
 *   <li>The leader-epoch checkpoint is derived from the segment names ({@code {epoch:08x}-{base}.log}: the
 *       first segment of each epoch is where it began). What that cannot show is a fenced ex-leader's late
 *       writes inside a segment, which the lost file would have cut.</li>
 *   <li>An unreadable recovery checkpoint only costs a full scan of the active segment; it is rewritten.</li>
 * </ul>
 * {@code kaas verify} asks {@link #unreadable} for the same files, so both tools name the same ones.
 */
public final class DerivedStateRebuild {
    private DerivedStateRebuild() {}

    /** The snapshots as loaded: a table whose file was unreadable starts empty and is marked for a whole-log replay. */
    record Snapshots(ProducerStateTable producers, TxnIndex txns, boolean rebuildProducers, boolean rebuildTxns) {
        boolean rebuildAny() {
            return rebuildProducers || rebuildTxns;
        }
    }

    /** One derivable file and what is wrong with it. */
    public record Finding(Path file, String what) {}

    /** The derivable JSON files of {@code partitionDir} that exist but cannot be read. */
    public static List<Finding> unreadable(Path partitionDir) {
        List<Finding> out = new ArrayList<>();
        check(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class, out);
        check(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class, out);
        check(partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class, out);
        check(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class, out);
        return out;
    }

    /**
     * The leader-epoch checkpoint; one that cannot be read is derived from the segment names and (unless
     * {@code dryRun}) written back before anything reads it, with a line in {@code actions}.
     */
    public static LeaderEpochCheckpoint epochsOrRebuild(Path partitionDir, boolean dryRun, List<String> actions) {
        Path file = partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME);
        try {
            return StateJson.read(file, LeaderEpochCheckpoint.class).orElse(LeaderEpochCheckpoint.EMPTY);
        } catch (StorageException e) {
            LeaderEpochCheckpoint derived = epochsFromSegmentNames(PartitionSegments.list(partitionDir));
            if (!dryRun) {
                StateJson.write(file, derived);
            }
            actions.add(file + ": unreadable (" + e.getMessage() + "), rebuilt from the segment names with "
                    + derived.epochs().size() + " epoch(s)");
            return derived;
        }
    }

    /** Each epoch's first segment, in offset order, is where it began; an epoch lower than one already seen adds nothing. */
    static LeaderEpochCheckpoint epochsFromSegmentNames(List<SegmentFile> segments) {
        List<LeaderEpochCheckpoint.Entry> entries = new ArrayList<>();
        int last = -1;
        for (SegmentFile s : segments.stream().sorted((a, b) -> Long.compare(a.baseOffset(), b.baseOffset())).toList()) {
            if (!s.name().apacheStyle() && s.name().epoch() > last) {
                entries.add(new LeaderEpochCheckpoint.Entry(s.name().epoch(), s.baseOffset()));
                last = s.name().epoch();
            }
        }
        return new LeaderEpochCheckpoint(LeaderEpochCheckpoint.VERSION, entries);
    }

    /** Loads both snapshots; one that cannot be read gives an empty table to be rebuilt ({@link #replayWholeLog}). */
    static Snapshots loadSnapshots(Path partitionDir, List<String> actions) {
        Path pFile = partitionDir.resolve(ProducerStateSnapshot.FILE_NAME);
        Path tFile = partitionDir.resolve(TxnIndexSnapshot.FILE_NAME);
        Optional<ProducerStateSnapshot> p = tryRead(pFile, ProducerStateSnapshot.class, actions);
        Optional<TxnIndexSnapshot> t = tryRead(tFile, TxnIndexSnapshot.class, actions);
        ProducerStateTable producers = ProducerStateTable.from(p == null || p.isEmpty()
                ? new ProducerStateSnapshot(ProducerStateSnapshot.VERSION, List.of()) : p.get());
        TxnIndex txns = TxnIndex.from(t == null || t.isEmpty()
                ? new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, List.of(), List.of()) : t.get());
        return new Snapshots(producers, txns, p == null, t == null);
    }

    /**
     * Replays every valid batch of {@code segments} below {@code logEnd}, from each segment's first byte,
     * onto the tables being rebuilt; a segment's walk ends at its first invalid batch (what recovery kept
     * ends there too).
     */
    static void replayWholeLog(Path partitionDir, List<SegmentName> segments, long logEnd, Snapshots s, List<String> actions)
            throws IOException {
        long batches = 0;
        for (SegmentName name : segments) {
            Path log = partitionDir.resolve(name.logFileName());
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
                BatchScanner scanner = BatchScanner.ofWholeFile(ch, log, name.baseOffset());
                for (ScannedBatch b = scanner.next(); b != null && b.header().baseOffset() < logEnd; b = scanner.next()) {
                    if (s.rebuildProducers()) {
                        s.producers().replay(b.header(), b.bytes(), 0);
                    }
                    if (s.rebuildTxns()) {
                        s.txns().replay(b.header(), b.bytes(), 0);
                    }
                    batches++;
                }
            }
        }
        String what = "rebuilt from the log (" + segments.size() + " segment(s), " + batches + " batch(es) replayed from the log start)";
        if (s.rebuildProducers()) {
            actions.add(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME) + ": " + what);
        }
        if (s.rebuildTxns()) {
            actions.add(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME) + ": " + what);
        }
    }

    /** Forgets what the snapshots say at or past {@code logEnd}: a finding per snapshot that said any (none: nothing forgotten). */
    static List<Finding> forgetPastLogEnd(Path partitionDir, ProducerStateTable producers, TxnIndex txns, long logEnd) {
        List<Finding> out = new ArrayList<>();
        int p = producers.dropAtOrAbove(logEnd);
        int t = txns.dropAtOrAbove(logEnd);
        if (p > 0) {
            out.add(new Finding(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME), p + " batch(es) at or past the log end "
                    + logEnd + ", which the log does not hold"));
        }
        if (t > 0) {
            out.add(new Finding(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME), t + " transaction entr(ies) at or past the log end "
                    + logEnd + ", which the log does not hold"));
        }
        return out;
    }

    /** What {@code kaas verify} reports of the readable snapshots: entries at or past {@code logEnd}, which recovery forgets. */
    public static List<Finding> pastLogEnd(Path partitionDir, long logEnd) {
        Snapshots s = loadSnapshots(partitionDir, new ArrayList<>());
        return forgetPastLogEnd(partitionDir, s.producers(), s.txns(), logEnd);
    }

    /** Whether the recovery checkpoint exists but cannot be read (it is then rewritten after the scan). */
    static boolean checkpointUnreadable(Path partitionDir) {
        List<Finding> out = new ArrayList<>();
        check(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class, out);
        return !out.isEmpty();
    }

    /** @return the file's contents (empty when missing), or null when it cannot be read (with a line in actions) */
    private static <T> Optional<T> tryRead(Path file, Class<T> type, List<String> actions) {
        try {
            return StateJson.read(file, type);
        } catch (StorageException e) {
            actions.add(file + ": unreadable (" + e.getMessage() + ")");
            return null;
        }
    }

    private static void check(Path file, Class<?> type, List<Finding> out) {
        try {
            StateJson.read(file, type);
        } catch (StorageException e) {
            out.add(new Finding(file, e.getMessage()));
        }
    }
}
