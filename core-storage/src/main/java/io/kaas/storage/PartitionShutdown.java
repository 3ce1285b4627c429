package io.kaas.storage;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.state.PartitionStateFiles;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two ways a partition stops: a clean {@link #close} that leaves the next open nothing to scan, and
 * {@link #abandon}, which writes nothing (another broker may own the partition already). Either runs
 * once, under the partition lock ({@link PartitionCore#close}); the owner lock and the Fetch long-polls
 * are released after it, even when it failed.
 */
final class PartitionShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionShutdown.class);

    private final TopicPartition id;
    private final PartitionCore core;
    private final CommitterBridge commits;
    private final OwnerLock owner;
    private final HighWatermarkWaiters hwmWaiters;

    PartitionShutdown(
            TopicPartition id,
            PartitionCore core,
            CommitterBridge commits,
            OwnerLock owner,
            HighWatermarkWaiters hwmWaiters) {
        this.id = id;
        this.core = core;
        this.commits = commits;
        this.owner = owner;
        this.hwmWaiters = hwmWaiters;
    }

    /**
     * Clean close: fsync the log and index, write the snapshots and the checkpoint at EOF
     * ({@link PartitionStateFiles#writeCheckpoint}) and the manifest (so the next open scans zero
     * bytes), close files, release the lock. Each step is skipped when already so on disk: a partition
     * untouched since it was loaded closes without opening or writing a file. After an fsync failure
     * only the files are closed: nothing unsynced is claimed durable.
     */
    void close() {
        try {
            core.close(g -> {
                StorageException sticky = core.sticky();
                if (sticky == null) {
                    writeCleanEnd(g);
                } else {
                    commits.failAll(sticky);
                }
                g.log.closeAll(id);
                return null;
            });
        } finally {
            owner.close();
            hwmWaiters.close();
        }
    }

    /**
     * Closes without writing anything more to the partition's files — no fsync-and-checkpoint, no
     * manifest, no snapshots: this broker was fenced and another may own the partition already. Appends
     * waiting for an fsync fail ({@link StorageException.Kind#NOT_OWNED}); nothing is acknowledged.
     */
    void abandon() {
        try {
            core.close(g -> {
                commits.failAll(new StorageException(
                        StorageException.Kind.NOT_OWNED, id + ": given up (this broker was fenced)"));
                g.log.closeAll(id);
                return null;
            });
        } finally {
            owner.close();
            hwmWaiters.close();
        }
    }

    /** The fsync, checkpoint at EOF and manifest of a clean close; a failure fails the waiters instead. Holds lock. */
    private void writeCleanEnd(GuardedState g) {
        try {
            g.log.active().flush();
            commits.completeAll();
            g.checkpoints.writeAtEnd(g.log.active(), g.log.nextOffset(), g.producers, g.txns);
            Manifest atClose = new Manifest(g.epoch, g.log.nextOffset(), g.logStartOffset);
            if (!atClose.equals(g.manifestOnDisk)) {
                g.stateFiles.writeManifest(atClose);
            }
        } catch (IOException | StorageException e) {
            LOG.error("{}: clean close failed; the next open recovers from the log: {}", id, e.getMessage());
            commits.failAll(
                    new StorageException(StorageException.Kind.IO, id + ": close failed: " + e.getMessage(), e));
        }
    }
}
