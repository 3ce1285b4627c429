package io.kaas.recovery;

import io.kaas.storage.LogStartRule;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.recovery.PartitionAnalysis;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.PartitionStateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Offline DeleteRecords on one partition, by the engine's own rules: the log end comes from the dry run
 * of the recovery scan every offline tool runs first ({@link PartitionAnalysis}: what the broker would
 * recover, not the lagging manifest; a damaged partition is refused, nothing is changed),
 * the target and the segments that go from {@link LogStartRule}. Then, as the broker does, log start is
 * made durable (log-start.json and manifest.json, {@link PartitionStateFiles#advanceLogStart}) before anything is unlinked.
 */
public final class RecordDeleter {
    /**
     * What was (or would be) done.
     *
     * @param written the files written (manifest.json with the new log start, with its temporary file), empty when
     *                log start does not move; a dry run lists what the real run would write
     */
    public record Result(
            long lowWatermark, long previousLogStart, long highWatermark, List<Path> removed, List<Path> written) {}

    private RecordDeleter() {}

    /**
     * @throws StorageException OFFSET_OUT_OF_RANGE when {@code offset} is past the high watermark (nothing
     *         changed); DAMAGED when the partition needs {@code kaas recover} first; IO when files cannot be read or written
     */
    public static Result delete(Path partitionDir, long offset, boolean dryRun) {
        RecoveryScan.Outcome scan = PartitionAnalysis.requireUndamaged(partitionDir, "nothing was deleted")
                .outcome();
        long logEnd = scan.logEndOffset();
        long logStart = scan.logStartOffset();
        long newStart = Math.max(logStart, LogStartRule.deleteRecordsTarget(offset, logEnd));
        List<SegmentName> segments = scan.segments();
        int gone = LogStartRule.segmentsWhollyBelow(
                segments.stream().map(SegmentName::baseOffset).toList(), newStart);
        List<Path> removed = new ArrayList<>();
        for (SegmentName s : segments.subList(0, gone)) {
            removed.add(partitionDir.resolve(s.logFileName()));
            if (Files.exists(partitionDir.resolve(s.indexFileName()))) {
                removed.add(partitionDir.resolve(s.indexFileName()));
            }
        }
        Manifest moved = newStart > logStart ? new Manifest(scan.epoch(), logEnd, newStart) : null;
        Path manifest = partitionDir.resolve(Manifest.FILE_NAME);
        List<Path> written =
                moved == null ? List.of() : List.of(manifest.resolveSibling(Manifest.FILE_NAME + ".tmp"), manifest);
        if (!dryRun) {
            apply(partitionDir, moved, removed);
        }
        return new Result(newStart, logStart, logEnd, removed, written);
    }

    /** @param moved the manifest with the new log start, or null when log start stays where it is (as in the broker, nothing is rewritten) */
    private static void apply(Path dir, Manifest moved, List<Path> removed) {
        if (moved != null) {
            // Durable before anything is unlinked: log start never moves back after a crash.
            new PartitionStateFiles(dir).advanceLogStart(moved);
        }
        List<Path> done = new ArrayList<>();
        Path at = dir;
        try {
            for (Path p : removed) {
                at = p;
                Files.deleteIfExists(p);
                done.add(p);
            }
            at = dir;
            if (!removed.isEmpty()) {
                AtomicFile.fsyncDirectory(dir);
            }
        } catch (IOException e) {
            // Half-way: say what already changed, so the operator knows the state the partition is in.
            String changed = (moved != null
                            ? "manifest.json written (logStartOffset " + moved.logStartOffset() + ")"
                            : "manifest.json unchanged")
                    + (done.isEmpty() ? ", nothing removed" : ", removed " + done);
            throw new StorageException(
                    StorageException.Kind.IO,
                    at + ": cannot remove: " + PartitionSegments.describe(e) + "; already changed: " + changed
                            + "; the log start is durable, so running delete-records again finishes it",
                    e);
        }
    }
}
