package io.kaas.broker.api;

import io.kaas.storage.StoredBatch;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import java.util.Iterator;
import java.util.Optional;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The one place the broker decodes records, and only for ListOffsets: record timestamps inside the one
 * batch that spans a lookup (KIP-79 by timestamp, KIP-734 max timestamp), read from a copy the storage
 * engine handed out ({@link StoredBatch}). Read-only: the copy is iterated with kafka-clients' record
 * classes (decompressing it when the producer compressed it, as Apache's {@code FileRecords.searchForTimestamp}
 * does), never rewritten, and no other batch is touched. Produce and Fetch never come here.
 *
 * <p>LogAppendTime batches carry one timestamp for all their records (the batch's max timestamp), so they
 * are answered from the header alone, as Apache's iterator would answer them.
 *
 * <p>Each batch it reads records of trips {@link CodecSite#LIST_OFFSETS_TIMESTAMP} with the batch's record
 * count, so the one decode on the request path is counted where it happens.
 */
final class RecordTimestampSearch {
    /** A record a lookup found: its timestamp, offset and the leader epoch of its batch (-1 when unknown). */
    record Found(long timestamp, long offset, int leaderEpoch) {}

    private final CodecTripwire tripwire;

    RecordTimestampSearch(CodecTripwire tripwire) {
        this.tripwire = tripwire;
    }

    /**
     * The first record of the batch whose timestamp is ≥ {@code target} and whose offset is ≥ {@code minOffset}
     * (log start); empty when none is (the caller goes on to the next batch).
     */
    Optional<Found> firstAtLeast(StoredBatch stored, long target, long minOffset, int maxDecompressedBytes) {
        if (stored.header().isLogAppendTime()) {
            return stored.header().lastOffset() < minOffset || stored.header().maxTimestamp() < target
                    ? Optional.empty()
                    : Optional.of(found(
                            stored,
                            stored.header().maxTimestamp(),
                            Math.max(stored.header().baseOffset(), minOffset)));
        }
        try (CloseableIterator<Record> records = records(stored, maxDecompressedBytes)) {
            while (records.hasNext()) {
                Record r = records.next();
                if (r.timestamp() >= target && r.offset() >= minOffset) {
                    return Optional.of(found(stored, r.timestamp(), r.offset()));
                }
            }
        }
        return Optional.empty();
    }

    /** KIP-734: the first record of the batch whose timestamp equals the batch's max timestamp. */
    Optional<Found> firstWithMaxTimestamp(StoredBatch stored, int maxDecompressedBytes) {
        long max = stored.header().maxTimestamp();
        if (stored.header().isLogAppendTime()) {
            return Optional.of(found(stored, max, stored.header().baseOffset()));
        }
        try (CloseableIterator<Record> records = records(stored, maxDecompressedBytes)) {
            while (records.hasNext()) {
                Record r = records.next();
                if (r.timestamp() == max) {
                    return Optional.of(found(stored, max, r.offset()));
                }
            }
        }
        return Optional.empty();
    }

    /** Records without their keys and values: only offsets and timestamps are needed. */
    private CloseableIterator<Record> records(StoredBatch stored, int maxDecompressedBytes) {
        Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(
                        stored.bytes().duplicate())
                .batches()
                .iterator();
        MutableRecordBatch batch = batches.next();
        tripwire.tripped(
                CodecSite.LIST_OFFSETS_TIMESTAMP,
                stored.header().lastOffset() - stored.header().baseOffset() + 1);
        return batch.skipKeyValueIterator(BufferSupplier.NO_CACHING, maxDecompressedBytes);
    }

    private static Found found(StoredBatch stored, long timestamp, long offset) {
        int epoch = stored.header().partitionLeaderEpoch();
        return new Found(timestamp, offset, epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH ? -1 : epoch);
    }
}
