package io.kaas.recovery;

import io.kaas.storage.StorageException;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Offline DeleteRecords on one partition: advance the log start offset in manifest.json (atomic
 * write, before anything is unlinked, as the broker does before it acknowledges), then unlink the
 * closed segments every offset of which is below it. The active segment (highest base offset) is
 * never removed. The high watermark is the log end read from the files, not the lagging manifest.
 */
public final class RecordDeleter {
    /** Offset asked for is past the high watermark (Kafka's OFFSET_OUT_OF_RANGE). */
    public static final class OffsetOutOfRangeException extends Exception {
        public OffsetOutOfRangeException(String message) {
            super(message);
        }
    }

    /** What was (or would be) done. */
    public record Result(long lowWatermark, long previousLogStart, long highWatermark, List<Path> removed) {}

    private RecordDeleter() {}

    public static Result delete(Path partitionDir, long offset, boolean dryRun) throws OffsetOutOfRangeException {
        List<SegmentFile> segments = PartitionSegments.list(partitionDir);
        Path manifestFile = partitionDir.resolve(Manifest.FILE_NAME);
        Manifest manifest = StateJson.read(manifestFile, Manifest.class).orElse(null);
        long firstBase = segments.isEmpty() ? 0 : segments.get(0).baseOffset();
        long logStart = Math.max(firstBase, manifest == null ? firstBase : manifest.logStartOffset());
        long logEnd = LogEnd.of(segments, logStart);
        long target = offset == -1 ? logEnd : offset;
        if (target < 0 || target > logEnd) {
            throw new OffsetOutOfRangeException("offset " + offset + " is not between 0 and the high watermark " + logEnd
                    + " (-1 means the high watermark)");
        }
        long newStart = Math.max(logStart, target);
        List<Path> removed = new ArrayList<>();
        for (int i = 0; i + 1 < segments.size() && segments.get(i + 1).baseOffset() <= newStart; i++) {
            removed.add(segments.get(i).log());
            if (Files.exists(segments.get(i).index())) {
                removed.add(segments.get(i).index());
            }
        }
        if (!dryRun) {
            apply(partitionDir, manifestFile, manifest, newStart, logEnd, segments, removed);
        }
        return new Result(newStart, logStart, logEnd, removed);
    }

    private static void apply(Path dir, Path manifestFile, Manifest manifest, long newStart, long logEnd,
                              List<SegmentFile> segments, List<Path> removed) {
        int epoch = manifest != null ? manifest.epoch()
                : Math.max(0, segments.stream().mapToInt(s -> s.name().epoch()).max().orElse(0));
        long hw = manifest == null ? logEnd : Math.max(manifest.highWatermark(), newStart);
        Manifest after = new Manifest(epoch, hw, newStart);
        if (!after.equals(manifest)) {
            StateJson.write(manifestFile, after);
        }
        try {
            for (Path p : removed) {
                Files.deleteIfExists(p);
            }
            if (!removed.isEmpty()) {
                AtomicFile.fsyncDirectory(dir);
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot remove segment: " + PartitionSegments.describe(e), e);
        }
    }
}
