package io.kaas.storage;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;

/**
 * Everything a partition's lock guards: the segments and next offset ({@link SegmentLog}), idempotence
 * and transaction state, log start, the topic config the append path applies, the checkpoint and
 * manifest bookkeeping.
 *
 * <p>Reachable only while the partition lock is held: {@link PartitionCore} keeps the one instance in a
 * {@code @GuardedBy("lock")} field (Error Prone checks every access) and hands it to a collaborator's
 * body for as long as it holds the lock. A collaborator uses it there and never keeps it. Readers on
 * other threads see what {@link PartitionCore} publishes from it ({@link PartitionView}).
 */
final class GuardedState {
    final SegmentLog log;
    final ProducerStateTable producers;
    final TxnIndex txns;
    /** The lock-free copy of {@link #producers}, updated by each append that changes a producer. */
    final ProducerStatuses statuses;

    final CheckpointKeeper checkpoints;
    final PartitionStateFiles stateFiles;
    /** The leader epoch this partition writes in (fixed while it is open). */
    final int epoch;

    long logStartOffset;
    TopicConfig topicConfig;
    AppendTimestamps timestamps;
    /** Records appended since the last flush request (flush.messages). */
    long pendingMessages;
    /** What manifest.json holds (recovery or the loader left it so): close skips an unchanged one. */
    Manifest manifestOnDisk;

    GuardedState(
            SegmentLog log,
            ProducerStateTable producers,
            TxnIndex txns,
            CheckpointKeeper checkpoints,
            PartitionStateFiles stateFiles,
            int epoch,
            long logStartOffset,
            TopicConfig topicConfig) {
        this.log = log;
        this.producers = producers;
        this.txns = txns;
        txns.dropAbortedBelow(logStartOffset); // a replayed tail may bring back ranges an earlier purge forgot
        this.statuses = ProducerStatuses.of(producers, txns);
        this.checkpoints = checkpoints;
        this.stateFiles = stateFiles;
        this.epoch = epoch;
        this.logStartOffset = logStartOffset;
        this.manifestOnDisk = new Manifest(epoch, log.nextOffset(), logStartOffset);
        setTopicConfig(topicConfig);
    }

    void setTopicConfig(TopicConfig config) {
        this.topicConfig = config;
        this.timestamps = AppendTimestamps.of(config);
    }

    /** What readers see of this state now. */
    PartitionView view() {
        long next = log.nextOffset();
        return new PartitionView(
                log.readerCopy(),
                new PartitionState(logStartOffset, next, txns.lastStableOffset(next), epoch, log.sizeInBytes()),
                txns.abortedRanges(),
                statuses);
    }
}
