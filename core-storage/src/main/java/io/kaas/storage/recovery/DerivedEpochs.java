package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The leader-epoch checkpoint as derivable state: whether {@code leader-epoch-checkpoint.json} agrees with the
 * segment names ({@code {epoch:08x}-{base}.log}: the first segment of each epoch is where it began), and the
 * checkpoint derived from those names when it cannot be read or disagrees. Recovery fences a fenced ex-leader's
 * late writes only by a checkpoint that agrees ({@link #trusted}); the partition open, recovery and verify ask
 * here, so they judge the file alike. Stateless; reads the directory, writes only in {@link #readOrRebuild}.
 */
public final class DerivedEpochs {
    private DerivedEpochs() {}

    /**
     * The leader-epoch checkpoint; one that cannot be read is derived from the segment names and (unless
     * {@code dryRun}) written back before anything reads it, with a line in {@code actions}.
     */
    public static LeaderEpochCheckpoint readOrRebuild(Path partitionDir, boolean dryRun, List<String> actions) {
        Path file = partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME);
        String problem;
        try {
            Optional<LeaderEpochCheckpoint> read = StateJson.read(file, LeaderEpochCheckpoint.class);
            problem = read.map(e -> disagreement(e, PartitionSegments.list(partitionDir)))
                    .orElse(null);
            if (problem == null) {
                return read.orElse(LeaderEpochCheckpoint.EMPTY);
            }
            // Readable but disagreeing: the scan fences by the derived epochs; the file is written only once the
            // scan finds no damage (afterScan), since segments that disagree with it may be the damage instead.
            LeaderEpochCheckpoint derived = fromSegmentNames(PartitionSegments.list(partitionDir));
            actions.add(file + ": " + problem + ", rebuilt from the segment names with "
                    + derived.epochs().size() + " epoch(s)");
            return derived;
        } catch (StorageException e) {
            problem = "unreadable (" + e.getMessage() + ")";
        }
        LeaderEpochCheckpoint derived = fromSegmentNames(PartitionSegments.list(partitionDir));
        if (!dryRun) {
            StateJson.write(file, derived);
        }
        actions.add(file + ": " + problem + ", rebuilt from the segment names with "
                + derived.epochs().size() + " epoch(s)");
        return derived;
    }

    /** The derived epochs to write after a scan that found no damage: the file disagrees with the log; else null. */
    static LeaderEpochCheckpoint toRewrite(Path partitionDir) {
        try {
            Optional<LeaderEpochCheckpoint> read =
                    StateJson.read(partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class);
            List<SegmentFile> segments = PartitionSegments.list(partitionDir);
            return read.isPresent() && disagreement(read.get(), segments) != null ? fromSegmentNames(segments) : null;
        } catch (StorageException e) {
            return null;
        }
    }

    /**
     * Why a readable leader-epoch checkpoint disagrees with the log, or null: a leader names each segment
     * it creates after its epoch, which it recorded before writing, so an epoch that wrote a segment (not
     * empty) and is missing from the checkpoint, or recorded as beginning after that segment's base offset,
     * is a damaged checkpoint. Fencing by it would remove intact batches; it is rebuilt instead.
     */
    static String disagreement(LeaderEpochCheckpoint epochs, List<SegmentFile> segments) {
        for (SegmentFile s : segments) {
            if (s.name().apacheStyle() || sizeOf(s.log()) == 0) {
                continue;
            }
            Optional<LeaderEpochCheckpoint.Entry> mine = epochs.epochs().stream()
                    .filter(e -> e.epoch() == s.name().epoch())
                    .findFirst();
            if (mine.isEmpty()) {
                return "disagrees with the log: it does not record epoch "
                        + s.name().epoch() + ", which wrote " + s.log().getFileName();
            }
            if (mine.get().startOffset() > s.baseOffset()) {
                return "disagrees with the log: it says epoch " + s.name().epoch() + " began at offset "
                        + mine.get().startOffset() + ", after " + s.log().getFileName()
                        + " (which that epoch wrote) begins";
            }
            // A leader rolls a segment named after its epoch where the epoch begins, so a fenced ex-leader's late
            // segment always has a later epoch's segment at or below its base offset. One the checkpoint would fence
            // with no such segment before it holds the log's own batches: the checkpoint is wrong, not the segment.
            long end = epochs.endOf(s.name().epoch());
            boolean laterBefore = segments.stream()
                    .anyMatch(o -> !o.name().apacheStyle()
                            && o.name().epoch() > s.name().epoch()
                            && o.baseOffset() <= s.baseOffset());
            if (s.baseOffset() >= end && !laterBefore) {
                return "disagrees with the log: it says a later epoch began at offset " + end
                        + ", but no segment of a later" + " epoch begins at or before "
                        + s.log().getFileName();
            }
        }
        String misplaced = startInsideAnOlderEpoch(epochs, segments);
        if (misplaced != null) {
            return misplaced;
        }
        for (int i = 1; i < epochs.epochs().size(); i++) {
            LeaderEpochCheckpoint.Entry a = epochs.epochs().get(i - 1);
            LeaderEpochCheckpoint.Entry b = epochs.epochs().get(i);
            if (b.epoch() <= a.epoch() || b.startOffset() < a.startOffset()) {
                return "disagrees with itself: epoch " + b.epoch() + " at offset " + b.startOffset() + " follows epoch "
                        + a.epoch() + " at offset " + a.startOffset() + " (epochs and their start offsets only grow)";
            }
        }
        return null;
    }

    /**
     * An epoch recorded as beginning before its first segment, inside a segment of an older epoch whose batch
     * there an older leader wrote: a leader starts a segment named after its epoch exactly where the epoch
     * begins, so its start is its first segment's base, unless compaction merged that segment into an older
     * one, and then the batches there carry the new epoch in their headers. Neither holds: the checkpoint is
     * wrong (fencing by it would cut an older leader's intact batches). Reads one segment's batch heads, only
     * when a start and a segment name differ.
     */
    private static String startInsideAnOlderEpoch(LeaderEpochCheckpoint epochs, List<SegmentFile> segments) {
        for (LeaderEpochCheckpoint.Entry e : epochs.epochs()) {
            Optional<SegmentFile> first = segments.stream()
                    .filter(s -> !s.name().apacheStyle() && s.name().epoch() == e.epoch())
                    .min((a, b) -> Long.compare(a.baseOffset(), b.baseOffset()));
            if (first.isEmpty() || first.get().baseOffset() <= e.startOffset()) {
                continue;
            }
            Optional<SegmentFile> holder = segments.stream()
                    .filter(s -> s.baseOffset() <= e.startOffset()
                            && s.baseOffset() < first.get().baseOffset())
                    .max((a, b) -> Long.compare(a.baseOffset(), b.baseOffset()));
            if (holder.isEmpty()
                    || holder.get().name().apacheStyle()
                    || holder.get().name().epoch() >= e.epoch()) {
                continue;
            }
            int writer = epochOfBatchReaching(holder.get().log(), e.startOffset());
            if (writer >= 0 && writer < e.epoch()) {
                return "disagrees with the log: it says epoch " + e.epoch() + " began at offset " + e.startOffset()
                        + ", but epoch " + writer + " wrote the batch there in "
                        + holder.get().log().getFileName()
                        + " and epoch " + e.epoch() + "'s first segment begins at "
                        + first.get().baseOffset();
            }
        }
        return null;
    }

    /** The leader epoch of the first batch of {@code log} whose last offset reaches {@code offset}, or -1. */
    private static int epochOfBatchReaching(Path log, long offset) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(log)) {
            io.kaas.storage.segment.HeaderCursor batches = new io.kaas.storage.segment.HeaderCursor(ch, 0, ch.size());
            while (batches.next() == io.kaas.storage.segment.HeaderCursor.Framing.BATCH) {
                if (batches.lastOffset() >= offset) {
                    return batches.header().partitionLeaderEpoch();
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static long sizeOf(Path file) {
        try {
            return java.nio.file.Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    /** The leader-epoch checkpoint the scan may fence by: the file, or (when it disagrees with the log) one derived from the names. */
    public static LeaderEpochCheckpoint trusted(Path partitionDir, LeaderEpochCheckpoint read) {
        List<SegmentFile> segments = PartitionSegments.list(partitionDir);
        return disagreement(read, segments) == null ? read : fromSegmentNames(segments);
    }

    /** Each epoch's first segment, in offset order, is where it began; an epoch lower than one already seen adds nothing. */
    static LeaderEpochCheckpoint fromSegmentNames(List<SegmentFile> segments) {
        List<LeaderEpochCheckpoint.Entry> entries = new ArrayList<>();
        int last = -1;
        for (SegmentFile s : segments.stream()
                .sorted((a, b) -> Long.compare(a.baseOffset(), b.baseOffset()))
                .toList()) {
            if (!s.name().apacheStyle() && s.name().epoch() > last) {
                entries.add(new LeaderEpochCheckpoint.Entry(s.name().epoch(), s.baseOffset()));
                last = s.name().epoch();
            }
        }
        return new LeaderEpochCheckpoint(LeaderEpochCheckpoint.VERSION, entries);
    }
}
