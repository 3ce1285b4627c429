package io.kaas.storage;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.state.PartitionStateFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition, in order: (1) take the owner lock, (2) run the recovery scan with the saved
 * idempotence and transaction state replayed to the recovered log end ({@link RecoveryScan#recoverState}),
 * refusing damage, (3) open the segments it kept (or create the first one and its manifest).
 * Anything that fails releases what was taken.
 */
final class PartitionLoader {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLoader.class);

    private PartitionLoader() {}

    static Partition load(Path dir, TopicPartition id, EngineConfig config, TopicConfig topicConfig, EngineExecutors executors) {
        FileChannel lockChannel = null;
        try {
            AtomicFile.createDirectories(dir);
            lockChannel = FileChannel.open(dir.resolve(Partition.LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock fl;
            try {
                fl = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                fl = null;
            }
            if (fl == null) {
                throw new StorageException(StorageException.Kind.LOCKED, dir + ": another process holds " + Partition.LOCK_FILE);
            }
            IndexPolicy indexPolicy = new IndexPolicy(config.indexIntervalBytes());
            RecoveryScan.RecoveredState recovered = RecoveryScan.recoverState(dir, RecoveryOptions.forOpen(indexPolicy, config.leaderEpoch()));
            RecoveryScan.Outcome outcome = recovered.outcome();
            RecoveryReport report = outcome.report();
            if (report.refused()) {
                throw new StorageException(StorageException.Kind.DAMAGED, String.join("; ", report.damage())
                        + " — run `kaas recover --force " + dir + "` to truncate, or restore the partition");
            }
            report.actions().forEach(a -> LOG.warn("{}: recovery: {}", id, a));
            SegmentLog log = SegmentLog.open(dir, outcome.segments(), outcome.epoch(), outcome.logEndOffset(), indexPolicy,
                    config.clock().millis());
            if (outcome.segments().isEmpty()) {
                new PartitionStateFiles(dir).writeManifest(new Manifest(outcome.epoch(), outcome.logEndOffset(), outcome.logStartOffset()));
            }
            return new Partition(id, dir, config, topicConfig, executors, lockChannel, fl, recovered, log);
        } catch (IOException e) {
            closeQuietly(lockChannel);
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot open partition: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }
}
