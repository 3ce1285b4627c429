package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
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
 * Snapshot entries at or past the recovered log end (batches the log does not hold) are forgotten and the
 * snapshots rewritten. One instance serves one recovery ({@link #beforeScan}, the scan, {@link #afterScan});
 * {@code kaas verify} asks {@link #unreadable} and {@link #pastLogEnd}, so both tools name the same files.
 */
public final class DerivedStateRebuild {
    private final Path dir;
    private final ProducerStateTable producers;
    private final TxnIndex txns;
    /** Whether the file was unreadable, so its table starts empty and is replayed from the log start. */
    private final boolean rebuildProducers;

    private final boolean rebuildTxns;
    private final boolean checkpointUnreadable;
    /** What the tail replay of the scan goes onto: the tables themselves, or throwaway ones for a table being rebuilt. */
    private final ProducerStateTable tailProducers;

    private final TxnIndex tailTxns;
    private final List<String> actions = new ArrayList<>();
    /** A leader-epoch checkpoint that disagreed with the log, rebuilt: written after a scan that finds no damage. */
    private final LeaderEpochCheckpoint epochsToWrite;

    private DerivedStateRebuild(Path dir, boolean dryRun) {
        this.dir = dir;
        DerivedEpochs.readOrRebuild(dir, dryRun, actions); // the scan fences late writes by it
        this.epochsToWrite = dryRun ? null : DerivedEpochs.toRewrite(dir);
        this.checkpointUnreadable =
                !check(dir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class, new ArrayList<>());
        Optional<ProducerStateSnapshot> p =
                tryRead(dir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class, actions);
        Optional<TxnIndexSnapshot> t =
                tryRead(dir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class, actions);
        this.rebuildProducers = p == null;
        this.rebuildTxns = t == null;
        this.producers = producersOf(p);
        this.txns = txnsOf(t);
        this.tailProducers = rebuildProducers ? ProducerStateTable.from(producers.snapshot()) : producers;
        this.tailTxns = rebuildTxns ? TxnIndex.from(txns.snapshot()) : txns;
    }

    /**
     * Before a recovery scan of {@code partitionDir}: the leader-epoch checkpoint repaired (unless {@code dryRun}),
     * the snapshots loaded, an unreadable one as an empty table to be rebuilt by {@link #afterScan}.
     */
    static DerivedStateRebuild beforeScan(Path partitionDir, boolean dryRun) {
        return new DerivedStateRebuild(partitionDir, dryRun);
    }

    /** The scan's visitor: replays the scanned tail onto the tables it covers (not onto one being rebuilt). */
    RecoveryScan.TailVisitor tailReplay() {
        return b -> {
            tailProducers.replay(b.header(), b.bytes(), 0);
            tailTxns.replay(b.header(), b.bytes(), 0);
        };
    }

    ProducerStateTable producers() {
        return producers;
    }

    TxnIndex txns() {
        return txns;
    }

    /** A line per derivable file rebuilt, rewritten or corrected. */
    List<String> actions() {
        return List.copyOf(actions);
    }

    /**
     * After a scan that kept {@code segments} and ended at {@code logEnd}: a table being rebuilt is replayed from
     * every segment, and what the tables say at or past {@code logEnd} is forgotten.
     *
     * @return whether the snapshots and the checkpoint must be written (in that order) although no tail was scanned
     */
    boolean afterScan(List<SegmentName> segments, long logEnd) throws IOException {
        if (epochsToWrite != null) {
            StateJson.write(dir.resolve(LeaderEpochCheckpoint.FILE_NAME), epochsToWrite);
        }
        if (rebuildProducers || rebuildTxns) {
            replayWholeLog(segments, logEnd);
        }
        if (checkpointUnreadable) {
            actions.add(dir.resolve(RecoveryCheckpoint.FILE_NAME) + ": unreadable, rewritten at the recovered log end");
        }
        // Entries past the log end describe batches the log does not hold (a retry of one must be written, not
        // answered as a duplicate): forgotten, and the snapshots rewritten even when no tail was scanned.
        List<Finding> pastEnd = forgetPastLogEnd(dir, producers, txns, logEnd);
        pastEnd.forEach(f -> actions.add(f.file() + ": " + f.what() + ": forgotten"));
        return rebuildProducers || rebuildTxns || checkpointUnreadable || !pastEnd.isEmpty();
    }

    /** One derivable file and what is wrong with it. */
    public record Finding(Path file, String what) {}

    /** The derivable JSON files of {@code partitionDir} that exist but cannot be read. */
    public static List<Finding> unreadable(Path partitionDir) {
        List<Finding> out = new ArrayList<>();
        check(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class, out);
        check(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class, out);
        Path epochsFile = partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME);
        if (check(epochsFile, LeaderEpochCheckpoint.class, out)) {
            StateJson.read(epochsFile, LeaderEpochCheckpoint.class)
                    .map(e -> DerivedEpochs.disagreement(e, PartitionSegments.list(partitionDir)))
                    .ifPresent(why -> out.add(new Finding(epochsFile, why)));
        }
        check(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class, out);
        return out;
    }

    /** A snapshot as read (null: unreadable, empty: missing) as its table; an empty one unless readable. */
    private static ProducerStateTable producersOf(Optional<ProducerStateSnapshot> read) {
        return ProducerStateTable.from(
                read == null || read.isEmpty()
                        ? new ProducerStateSnapshot(ProducerStateSnapshot.VERSION, List.of())
                        : read.get());
    }

    private static TxnIndex txnsOf(Optional<TxnIndexSnapshot> read) {
        return TxnIndex.from(
                read == null || read.isEmpty()
                        ? new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, List.of(), List.of())
                        : read.get());
    }

    /**
     * Replays every valid batch of {@code segments} below {@code logEnd}, from each segment's first byte, onto the
     * tables being rebuilt; a segment's walk ends at its first invalid batch (what recovery kept ends there too).
     */
    private void replayWholeLog(List<SegmentName> segments, long logEnd) throws IOException {
        long batches = 0;
        for (SegmentName name : segments) {
            Path log = dir.resolve(name.logFileName());
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
                BatchScanner scanner = BatchScanner.ofWholeFile(ch, log, name.baseOffset());
                for (ScannedBatch b = scanner.next();
                        b != null && b.header().baseOffset() < logEnd;
                        b = scanner.next()) {
                    if (rebuildProducers) {
                        producers.replay(b.header(), b.bytes(), 0);
                    }
                    if (rebuildTxns) {
                        txns.replay(b.header(), b.bytes(), 0);
                    }
                    batches++;
                }
            }
        }
        String what = "rebuilt from the log (" + segments.size() + " segment(s), " + batches
                + " batch(es) replayed from the log start)";
        if (rebuildProducers) {
            actions.add(dir.resolve(ProducerStateSnapshot.FILE_NAME) + ": " + what);
        }
        if (rebuildTxns) {
            actions.add(dir.resolve(TxnIndexSnapshot.FILE_NAME) + ": " + what);
        }
    }

    /** Forgets what the snapshots say at or past {@code logEnd}: a finding per snapshot that said any (none: nothing forgotten). */
    static List<Finding> forgetPastLogEnd(Path partitionDir, ProducerStateTable producers, TxnIndex txns, long logEnd) {
        List<Finding> out = new ArrayList<>();
        int p = producers.dropAtOrAbove(logEnd);
        int t = txns.dropAtOrAbove(logEnd);
        if (p > 0) {
            out.add(new Finding(
                    partitionDir.resolve(ProducerStateSnapshot.FILE_NAME),
                    p + " batch(es) at or past the log end " + logEnd + ", which the log does not hold"));
        }
        if (t > 0) {
            out.add(new Finding(
                    partitionDir.resolve(TxnIndexSnapshot.FILE_NAME),
                    t + " transaction entr(ies) at or past the log end " + logEnd + ", which the log does not hold"));
        }
        return out;
    }

    /** What {@code kaas verify} reports of the readable snapshots: entries at or past {@code logEnd}, which recovery forgets. */
    public static List<Finding> pastLogEnd(Path partitionDir, long logEnd) {
        List<String> ignored = new ArrayList<>();
        Optional<ProducerStateSnapshot> p =
                tryRead(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class, ignored);
        Optional<TxnIndexSnapshot> t =
                tryRead(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class, ignored);
        return forgetPastLogEnd(partitionDir, producersOf(p), txnsOf(t), logEnd);
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

    /** @return false (with a finding in {@code out}) when the file exists but cannot be read */
    private static boolean check(Path file, Class<?> type, List<Finding> out) {
        try {
            StateJson.read(file, type);
            return true;
        } catch (StorageException e) {
            out.add(new Finding(file, e.getMessage()));
            return false;
        }
    }
}
