package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.util.List;

/**
 * Where a partition's log start may move, and which segments go with it: the one rule for DeleteRecords
 * (broker and {@code kaas delete-records}) and retention. Log start only moves forward; the caller makes
 * it durable (manifest) before it unlinks anything, so an acknowledged purge survives a power cut.
 */
public final class LogStartRule {
    private LogStartRule() {}

    /**
     * DeleteRecords' target: {@code requested}, or the high watermark for -1 (as kafka-delete-records).
     *
     * @throws StorageException OFFSET_OUT_OF_RANGE when the target is negative or past the high watermark
     */
    public static long deleteRecordsTarget(long requested, long highWatermark) {
        long target = requested == -1 ? highWatermark : requested;
        if (target < 0 || target > highWatermark) {
            throw new StorageException(
                    StorageException.Kind.OFFSET_OUT_OF_RANGE,
                    "offset " + requested + " is not between 0 and the high watermark " + highWatermark
                            + " (-1 means the high watermark)");
        }
        return target;
    }

    /**
     * How many of the oldest segments lie wholly below {@code logStartOffset}: segment i goes when
     * segment i+1 starts at or before it. The last (active) segment never goes.
     *
     * @param baseOffsets the segments' base offsets, oldest first
     */
    public static int segmentsWhollyBelow(List<Long> baseOffsets, long logStartOffset) {
        int n = 0;
        while (n + 1 < baseOffsets.size() && baseOffsets.get(n + 1) <= logStartOffset) {
            n++;
        }
        return n;
    }

    /**
     * One retention pass's log start: past the closed segments (oldest first) beyond retention.bytes or
     * whose newest batch timestamp (file modification time when no batch has one, as Kafka) is older
     * than retention.ms. Only for a {@code delete} cleanup policy; the active segment never goes.
     *
     * @return the new log start, {@code logStartOffset} when nothing goes
     */
    static long retentionTarget(List<Segment> segments, TopicConfig topic, long logStartOffset, long nowMs)
            throws IOException {
        String policy = topic.cleanupPolicy();
        if (policy != null && !policy.contains("delete")) {
            return logStartOffset;
        }
        Long retentionMs = topic.retentionMs() != null ? topic.retentionMs() : TopicDefaults.DEFAULT_RETENTION_MS;
        Long retentionBytes = topic.retentionBytes();
        long total = 0;
        for (Segment s : segments) {
            total += s.size();
        }
        long newStart = logStartOffset;
        for (int i = 0; i < segments.size() - 1; i++) {
            Segment s = segments.get(i);
            boolean overSize = retentionBytes != null && retentionBytes >= 0 && total - s.size() >= retentionBytes;
            boolean expired = retentionMs != null && retentionMs >= 0 && nowMs - ageMs(s) > retentionMs;
            if (!overSize && !expired) {
                break;
            }
            total -= s.size();
            newStart = Math.max(newStart, segments.get(i + 1).baseOffset());
        }
        return newStart;
    }

    private static long ageMs(Segment s) throws IOException {
        long ts = s.maxTimestamp();
        return ts >= 0 ? ts : s.lastModifiedMs();
    }
}
