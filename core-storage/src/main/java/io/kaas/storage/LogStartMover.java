package io.kaas.storage;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a partition's log start forward, for DeleteRecords and retention: the target by
 * {@link LogStartRule}, made durable before anything changes in memory, the segments wholly below it
 * detached under the lock, then closed and unlinked outside it ({@link RemovedSegments}).
 *
 * <p>The move runs under the partition lock on the {@link GuardedState}; the unlink runs on the
 * caller's thread after the lock is released.
 */
final class LogStartMover {
    private static final Logger LOG = LoggerFactory.getLogger(LogStartMover.class);

    private final TopicPartition id;
    private final Path dir;
    private final PartitionCore core;

    LogStartMover(TopicPartition id, Path dir, PartitionCore core) {
        this.id = id;
        this.dir = dir;
        this.core = core;
    }

    /** {@link PartitionLog#deleteRecords}: the new log start. */
    long deleteRecords(long offset) {
        List<Segment> gone = core.change(g -> {
            core.ensureOpen();
            long target;
            try {
                target = LogStartRule.deleteRecordsTarget(offset, g.log.nextOffset());
            } catch (StorageException e) {
                throw new StorageException(e.kind(), id + ": " + e.getMessage());
            }
            return target <= g.logStartOffset ? List.<Segment>of() : advance(g, target);
        });
        RemovedSegments.closeAndUnlink(id, dir, gone);
        return core.view().state().logStartOffset();
    }

    /**
     * One retention pass ({@link LogStartRule#retentionTarget}). The active segment is never removed.
     * Returns how many segments went.
     */
    int runRetention(long nowMs) {
        List<Segment> gone;
        try {
            gone = core.change(g -> {
                if (!core.healthy()) {
                    return List.<Segment>of();
                }
                long newStart =
                        LogStartRule.retentionTarget(g.log.readerCopy(), g.topicConfig, g.logStartOffset, nowMs);
                return newStart == g.logStartOffset ? List.<Segment>of() : advance(g, newStart);
            });
        } catch (IOException e) {
            LOG.warn("{}: retention pass failed: {}", id, e.toString());
            return 0;
        }
        RemovedSegments.closeAndUnlink(id, dir, gone);
        return gone.size();
    }

    /**
     * Moves log start to {@code target}, durably (log-start.json and the manifest are written before
     * anything changes in memory: an acknowledged purge survives a power cut), and detaches the closed
     * segments lying wholly below it. Holds lock.
     */
    private List<Segment> advance(GuardedState g, long target) {
        // Durable first: if the write fails, nothing changed and the caller gets the error.
        // The high watermark stays what is known fsynced (recovery reads bytes below it as durable): the
        // log past it may still be in the page cache (acks=1), and this write does not fsync the log.
        Manifest next = new Manifest(g.epoch, Math.max(g.manifestOnDisk.highWatermark(), target), target);
        g.stateFiles.advanceLogStart(next);
        g.manifestOnDisk = next;
        g.logStartOffset = target;
        g.txns.dropAbortedBelow(target);
        return g.log.removeWhollyBelow(target);
    }
}
