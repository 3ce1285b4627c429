package io.kaas.storage.cleaner;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.util.Map;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.OffsetMap;

/**
 * What survives cleaning, batch by batch and record by record, by Apache's rules (its
 * {@code Cleaner.cleanInto}); kafka-clients' {@link MemoryRecords#filterTo} applies the verdicts and
 * rebuilds each batch that loses records with the same base offset, last offset, producer id, epoch,
 * base sequence, partition leader epoch, timestamps and codec (a batch that loses nothing is copied
 * byte for byte).
 * <ul>
 *   <li>A record survives when it is the latest for its key in the offset map (or lies past what the
 *       map covers), and is not a tombstone whose delete horizon has passed. A record without a key
 *       cannot be compacted and is dropped, as Apache does.</li>
 *   <li>A tombstone, or a marker that may go, first gets its batch stamped with a delete horizon (now
 *       + delete.retention.ms, KIP-534); a later pass after that time removes it.</li>
 *   <li>A batch is kept, even empty, when it is a producer's last data batch (its sequence and epoch
 *       are what idempotence resumes from) or the last batch of the cleaned range (so the range's
 *       last offset stays visible).</li>
 * </ul>
 */
final class CleanerFilter extends MemoryRecords.RecordFilter {
    private final OffsetMap map;
    private final CleanedTransactions transactions;
    /** Producer id → base offset of its last data batch (kept, even empty). */
    private final Map<Long, Long> lastBatchOfProducer;

    private final long upperBoundOffset;
    private final CleanerCounts counts;
    private boolean discardBatchRecords;

    CleanerFilter(
            long nowMs,
            long deleteRetentionMs,
            OffsetMap map,
            CleanedTransactions transactions,
            Map<Long, Long> lastBatchOfProducer,
            long upperBoundOffset,
            CleanerCounts counts) {
        super(nowMs, deleteRetentionMs);
        this.map = map;
        this.transactions = transactions;
        this.lastBatchOfProducer = lastBatchOfProducer;
        this.upperBoundOffset = upperBoundOffset;
        this.counts = counts;
    }

    @Override
    protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
        boolean canDiscard =
                batch.isControlBatch() ? transactions.onControlBatch(batch) : transactions.onDataBatch(batch);
        if (batch.isControlBatch()) {
            discardBatchRecords = canDiscard
                    && batch.deleteHorizonMs().isPresent()
                    && batch.deleteHorizonMs().getAsLong() <= currentTime;
        } else {
            discardBatchRecords = canDiscard;
        }
        Long last = lastBatchOfProducer.get(batch.producerId());
        boolean producersLast = batch.hasProducerId() && last != null && last == batch.baseOffset();
        BatchRetention retention;
        if (producersLast || batch.nextOffset() == upperBoundOffset) {
            retention = BatchRetention.RETAIN_EMPTY;
        } else if (discardBatchRecords) {
            retention = BatchRetention.DELETE;
        } else {
            retention = BatchRetention.DELETE_EMPTY;
        }
        if (discardBatchRecords) {
            int n = batch.countOrNull() == null ? 0 : batch.countOrNull();
            if (batch.isControlBatch()) {
                counts.markersRemoved += n;
            } else {
                counts.abortedRemoved += n;
            }
            if (retention == BatchRetention.DELETE) {
                counts.recordsRead += n;
            }
        }
        return new BatchRetentionResult(retention, canDiscard && batch.isControlBatch());
    }

    @Override
    protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
        counts.recordsRead++;
        if (discardBatchRecords) {
            return false;
        }
        if (batch.isControlBatch()) {
            return true;
        }
        if (record.offset() > map.latestOffset()) {
            return true;
        }
        if (!record.hasKey()) {
            counts.unkeyedRemoved++;
            return false;
        }
        ByteBuffer key = record.key();
        long latest;
        try {
            latest = map.get(key);
        } catch (DigestException e) {
            throw new IllegalStateException("MD5 digest failed", e);
        }
        if (record.offset() < latest) {
            counts.supersededRemoved++;
            return false;
        }
        boolean keepTombstone = batch.deleteHorizonMs().isEmpty()
                || currentTime < batch.deleteHorizonMs().getAsLong();
        if (!record.hasValue() && !keepTombstone) {
            counts.keysRemoved++;
            return false;
        }
        return true;
    }
}
