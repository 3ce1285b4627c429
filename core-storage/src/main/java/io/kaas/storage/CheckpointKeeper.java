package io.kaas.storage;

import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds recovery: moves a partition's recovery checkpoint forward once the fsynced log has grown
 * checkpointIntervalBytes past it, and to EOF on clean close (so the next open scans zero bytes).
 * The index is fsynced first and the snapshots go before the checkpoint
 * ({@link PartitionStateFiles#writeCheckpoint}), so a checkpoint never claims more than is on disk.
 *
 * <p>Holds the partition lock for every call: every snapshot write (here, at roll, at close) is
 * serialised on it, so two writers never share a .tmp file and an older snapshot never lands over a
 * newer one (a roll's snapshot must cover everything before the new segment).
 */
final class CheckpointKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointKeeper.class);

    private final TopicPartition id;
    private final PartitionStateFiles stateFiles;
    private final long intervalBytes;
    private RecoveryCheckpoint last;

    /** {@code current}: where the checkpoint on disk stands (recovery left it at EOF when it scanned a tail). */
    CheckpointKeeper(
            TopicPartition id, PartitionStateFiles stateFiles, long intervalBytes, RecoveryCheckpoint current) {
        this.id = id;
        this.stateFiles = stateFiles;
        this.intervalBytes = intervalBytes;
        this.last = current;
    }

    /** After an fsync of {@code segment} up to {@code bytePos}: refreshes the checkpoint when due. A failure only means a longer scan at next open. */
    void refreshIfDue(Segment segment, long bytePos, long highWatermark, ProducerStateTable producers, TxnIndex txns) {
        long since = segment.baseOffset() == last.segmentBase() ? bytePos - last.bytePos() : bytePos;
        if (since < intervalBytes) {
            return;
        }
        try {
            segment.index().flush();
            write(new RecoveryCheckpoint(segment.baseOffset(), bytePos, highWatermark), producers, txns);
        } catch (IOException | StorageException e) {
            LOG.warn("{}: could not refresh the recovery checkpoint (next open scans more): {}", id, e.getMessage());
        }
    }

    /**
     * Clean close: the checkpoint at EOF of the fsynced {@code active} segment (its index fsynced too).
     * Nothing is written when the checkpoint on disk is already there: then nothing was appended since
     * (every change of producer or transaction state comes with an append), so the snapshots written
     * before it still hold. An idle partition closes without a write.
     */
    void writeAtEnd(Segment active, long highWatermark, ProducerStateTable producers, TxnIndex txns)
            throws IOException {
        RecoveryCheckpoint atEnd = new RecoveryCheckpoint(active.baseOffset(), active.size(), highWatermark);
        if (atEnd.equals(last)) {
            return;
        }
        active.index().flush();
        write(atEnd, producers, txns);
    }

    private void write(RecoveryCheckpoint cp, ProducerStateTable producers, TxnIndex txns) {
        stateFiles.writeCheckpoint(producers, txns, cp);
        last = cp;
    }
}
