package io.kaas.storage;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.recovery.DerivedEpochs;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.state.PartitionStateFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition, in order: (1) take the owner lock (only a partition opened on its own: an engine
 * holds its data directory's, see {@link OwnerLock}), (2) run the recovery scan with the saved
 * idempotence and transaction state replayed to the recovered log end ({@link RecoveryScan#recoverState}),
 * refusing damage, (3) open the segments it kept (or create the first one and its manifest).
 * Anything that fails releases what was taken.
 */
final class PartitionLoader {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLoader.class);

    private PartitionLoader() {}

    /** A partition of an engine, which holds the data directory's lock and shares its file-handle budget. */
    static Partition load(
            Path dir,
            TopicPartition id,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            FileHandleCache files,
            EngineObserver observer) {
        createDirectory(dir);
        return load(dir, id, config, topicConfig, executors, files, OwnerLock.none(), observer, false);
    }

    /**
     * A partition of an engine taken over in leader epoch {@code epoch} (several brokers over one shared
     * directory): recovery as usual, then, for an epoch newer than any recorded, the leader-epoch checkpoint
     * gains {@code epoch → log end} (durably, before anything of the epoch is written) and the log starts
     * a segment named with it ({@link SegmentLog#startEpoch}).
     *
     * @throws StorageException FENCED_LEADER_EPOCH when the checkpoint already records a newer epoch
     */
    static Partition takeOver(
            Path dir,
            TopicPartition id,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            FileHandleCache files,
            EngineObserver observer,
            int epoch) {
        createDirectory(dir);
        return load(
                dir,
                id,
                config.withLeaderEpoch(epoch),
                topicConfig,
                executors,
                files,
                OwnerLock.none(),
                observer,
                true);
    }

    /** A partition on its own (tests, benchmarks): its own {@code .lock} and a budget of its own. */
    static Partition loadAlone(
            Path dir, TopicPartition id, EngineConfig config, TopicConfig topicConfig, EngineExecutors executors) {
        createDirectory(dir);
        return load(
                dir,
                id,
                config,
                topicConfig,
                executors,
                new FileHandleCache(config.maxOpenFiles()),
                OwnerLock.acquire(dir),
                EngineObserver.NONE,
                false);
    }

    private static void createDirectory(Path dir) {
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot open partition: " + e.getMessage(), e);
        }
    }

    private static Partition load(
            Path dir,
            TopicPartition id,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            FileHandleCache files,
            OwnerLock owner,
            EngineObserver observer,
            boolean newEpoch) {
        try {
            IndexPolicy indexPolicy = new IndexPolicy(config.indexIntervalBytes());
            List<String> rebuilt = new ArrayList<>();
            LeaderEpochCheckpoint epochs = DerivedEpochs.readOrRebuild(dir, false, rebuilt);
            rebuilt.forEach(a -> LOG.warn("{}: recovery: {}", id, a));
            if (newEpoch && epochs.latestEpoch() >= config.leaderEpoch()) {
                throw new StorageException(
                        StorageException.Kind.FENCED_LEADER_EPOCH,
                        dir + ": epoch " + config.leaderEpoch() + " is not newer than the recorded epoch "
                                + epochs.latestEpoch());
            }
            RecoveryScan.RecoveredState recovered =
                    RecoveryScan.recoverState(dir, RecoveryOptions.forOpen(indexPolicy, config.leaderEpoch()));
            RecoveryScan.Outcome outcome = recovered.outcome();
            RecoveryReport report = outcome.report();
            if (report.refused()) {
                throw new StorageException(
                        StorageException.Kind.DAMAGED,
                        String.join("; ", report.damage())
                                + " — the partition stays offline; run `kaas recover --force " + dir
                                + "` to remove only the damaged bytes"
                                + " (--force --truncate to cut there; either quarantines what it removes), or restore the partition");
            }
            report.actions().forEach(a -> LOG.warn("{}: recovery: {}", id, a));
            if (newEpoch && outcome.epoch() != config.leaderEpoch()) {
                throw new StorageException(
                        StorageException.Kind.FENCED_LEADER_EPOCH,
                        dir + ": the manifest's epoch " + outcome.epoch() + " is newer than the epoch "
                                + config.leaderEpoch() + " taking over");
            }
            SegmentLog log = SegmentLog.open(
                    dir,
                    outcome.segments(),
                    outcome.epoch(),
                    outcome.logEndOffset(),
                    indexPolicy,
                    config.clock().millis(),
                    files);
            if (report.bytesScanned() > 0) {
                log.active().assumeUnsynced(); // a tail the last process may never have fsynced
            }
            if (outcome.segments().isEmpty()) {
                // Its directory fsync also makes the first segment's entries durable (SegmentLog.open).
                new PartitionStateFiles(dir)
                        .writeManifest(new Manifest(outcome.epoch(), outcome.logEndOffset(), outcome.logStartOffset()));
            }
            if (newEpoch) {
                PartitionStateFiles stateFiles = new PartitionStateFiles(dir);
                // The snapshots must cover the segment being sealed (recovery replays only the active one).
                stateFiles.writeSnapshots(recovered.producers(), recovered.txns());
                StateJson.write(
                        dir.resolve(LeaderEpochCheckpoint.FILE_NAME),
                        epochs.with(config.leaderEpoch(), outcome.logEndOffset()));
                log.startEpoch(config.clock().millis());
                stateFiles.writeManifest(
                        new Manifest(config.leaderEpoch(), outcome.logEndOffset(), outcome.logStartOffset()));
            }
            return new Partition(id, dir, config, topicConfig, executors, owner, recovered, log, observer);
        } catch (IOException e) {
            owner.close();
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot open partition: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            owner.close();
            throw e;
        }
    }
}
