package io.kaas.inspect.verify;

import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.DurableLogStart;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one partition held when verify started, so that verify beside a running broker checks a consistent
 * prefix: the log start's copies (manifest.json, then log-start.json, the reverse of their write order)
 * and recovery-checkpoint.json first (the engine writes each only after the log bytes it describes),
 * then the segment list and each segment's size. The walk reads no byte past a captured size and no segment created since; an index entry for bytes past it is an append since, not
 * an error. What an append in progress leaves at the end of the active segment (a batch half in the file,
 * a partial index entry) is damage only when no broker holds the partition ({@link #live}).
 */
final class PartitionPrefix {
    /** A state file as read at the start: its value, or the error reading it gave. */
    record State<T>(Optional<T> value, StorageException error) {
        static <T> State<T> read(Path file, Class<T> type) {
            try {
                return new State<>(StateJson.read(file, type), null);
            } catch (StorageException e) {
                return new State<>(Optional.empty(), e);
            }
        }
    }

    final Path dir;
    final DurableLogStart logStart;
    final State<RecoveryCheckpoint> checkpoint;
    final List<SegmentFile> segments;
    private final Map<Path, Long> sizes;
    private Boolean live;

    private PartitionPrefix(
            Path dir,
            DurableLogStart logStart,
            State<RecoveryCheckpoint> checkpoint,
            List<SegmentFile> segments,
            Map<Path, Long> sizes) {
        this.dir = dir;
        this.logStart = logStart;
        this.checkpoint = checkpoint;
        this.segments = segments;
        this.sizes = sizes;
    }

    /** @throws StorageException IO when the directory cannot be listed or a segment cannot be sized */
    static PartitionPrefix capture(Path dir) {
        DurableLogStart logStart = DurableLogStart.read(dir);
        State<RecoveryCheckpoint> checkpoint =
                State.read(dir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class);
        List<SegmentFile> listed = PartitionSegments.list(dir);
        List<SegmentFile> segments = new ArrayList<>();
        Map<Path, Long> sizes = new HashMap<>();
        for (SegmentFile s : listed) {
            try {
                sizes.put(s.log(), Files.isRegularFile(s.log()) ? Files.size(s.log()) : -1L);
                segments.add(s);
            } catch (NoSuchFileException e) {
                // removed between the listing and now (retention, the cleaner's swap): not part of the prefix
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, s.log() + ": cannot read: " + PartitionSegments.describe(e), e);
            }
        }
        return new PartitionPrefix(dir, logStart, checkpoint, List.copyOf(segments), sizes);
    }

    /** The log's size at the start; -1 for a segment name that is not a regular file. */
    long size(SegmentFile segment) {
        return sizes.getOrDefault(segment.log(), -1L);
    }

    boolean isActive(SegmentFile segment) {
        return !segments.isEmpty() && segments.get(segments.size() - 1).equals(segment);
    }

    /** A broker (or a partition opened on its own) holds the partition: asked once, only when an answer is needed. */
    boolean live() {
        if (live == null) {
            live = OwnerLock.inUse(dir);
        }
        return live;
    }
}
