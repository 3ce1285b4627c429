package io.kaas.storage;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import java.util.List;

/**
 * What a topic's timestamp configs do to an append, from the batch headers alone (records are never
 * decoded): message.timestamp.type=LogAppendTime stamps the batches with the broker's clock
 * ({@link RecordBatchHeader#stampLogAppendTime}); CreateTime batches must lie within
 * message.timestamp.before.max.ms / after.max.ms of it (KIP-937), else INVALID_TIMESTAMP as Apache.
 * Read from the topic config once, when it is set, not on every append.
 *
 * <p>The header carries the batch's largest timestamp, so the "after" bound is exact. For "before" it
 * carries the first record's timestamp (baseTimestamp), not the smallest: a later record with an older
 * timestamp is not caught. Apache decodes every record for that; the default bound is off (unbounded).
 */
record AppendTimestamps(boolean logAppendTime, long beforeMaxMs, long afterMaxMs) {

    static AppendTimestamps of(TopicConfig topic) {
        return new AppendTimestamps(topic.logAppendTime(), topic.timestampBeforeMaxMs(), topic.timestampAfterMaxMs());
    }

    /** The append time to stamp for a LogAppendTime topic, else {@link RecordBatchHeader#NO_TIMESTAMP}. */
    long logAppendTime(long nowMs) {
        return logAppendTime ? nowMs : RecordBatchHeader.NO_TIMESTAMP;
    }

    /** @throws StorageException INVALID_TIMESTAMP for a CreateTime batch outside the topic's bounds */
    void check(TopicPartition id, List<RecordBatchHeader> headers, long nowMs) {
        if (logAppendTime) {
            return;
        }
        long earliest = beforeMaxMs >= nowMs ? Long.MIN_VALUE : nowMs - beforeMaxMs;
        long latest = afterMaxMs > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + afterMaxMs;
        for (RecordBatchHeader h : headers) {
            if (h.isControl() || h.maxTimestamp() == RecordBatchHeader.NO_TIMESTAMP) {
                continue;
            }
            boolean tooNew = h.maxTimestamp() > latest;
            if (tooNew || h.baseTimestamp() < earliest) {
                throw new StorageException(
                        StorageException.Kind.INVALID_TIMESTAMP,
                        String.format(
                                "%s: timestamp %d of a record is out of range. The timestamp should be within [%d, %d]"
                                        + " (message.timestamp.before.max.ms %d, message.timestamp.after.max.ms %d)",
                                id,
                                tooNew ? h.maxTimestamp() : h.baseTimestamp(),
                                earliest,
                                latest,
                                beforeMaxMs,
                                afterMaxMs));
            }
        }
    }
}
