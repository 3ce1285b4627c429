package io.kaas.storage.cleaner;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.segment.IndexPolicy;

/**
 * One pass's knobs, Apache's names and defaults.
 *
 * @param nowMs              the pass's clock (delete horizons, compaction lag)
 * @param deleteRetentionMs  delete.retention.ms: how long a tombstone (and a removable marker) stays after the pass that first saw it
 * @param minCompactionLagMs min.compaction.lag.ms: a segment holding a record younger than this is not cleaned yet
 * @param segmentBytes       segment.bytes: cleaned segments are grouped up to this size
 * @param dedupeBufferBytes  log.cleaner.dedupe.buffer.size (per cleaner): the offset map's memory; a pass
 *                           whose dirty keys do not fit stops where it filled and the next pass goes on
 * @param ioBufferBytes      log.cleaner.io.buffer.size: read and write buffers (each), grown for a larger batch
 * @param indexPolicy        where the cleaned segment's index gets entries (the broker's rule)
 */
public record CleanerOptions(
        long nowMs,
        long deleteRetentionMs,
        long minCompactionLagMs,
        long segmentBytes,
        long dedupeBufferBytes,
        int ioBufferBytes,
        IndexPolicy indexPolicy) {
    /** Apache's log.cleaner.dedupe.buffer.size default. */
    public static final long DEFAULT_DEDUPE_BUFFER_BYTES = 128L * 1024 * 1024;
    /** Apache's log.cleaner.io.buffer.size default. */
    public static final int DEFAULT_IO_BUFFER_BYTES = 512 * 1024;
    /** Apache's log.cleaner.io.buffer.load.factor: the offset map is "full" at 90% of its slots. */
    public static final double LOAD_FACTOR = 0.9;
    /**
     * A topic's knobs (Apache's defaults for the unset ones).
     *
     * @param minCompactionLagOverrideMs {@code kaas compact --min-compaction-lag-ms}, or null for the topic's
     */
    public static CleanerOptions forTopic(
            TopicConfig topic,
            long nowMs,
            long dedupeBufferBytes,
            Long minCompactionLagOverrideMs,
            IndexPolicy indexPolicy) {
        long lag = minCompactionLagOverrideMs != null
                ? minCompactionLagOverrideMs
                : topic.minCompactionLagMs() != null
                        ? topic.minCompactionLagMs()
                        : TopicDefaults.DEFAULT_MIN_COMPACTION_LAG_MS;
        long retention = topic.deleteRetentionMs() != null
                ? topic.deleteRetentionMs()
                : TopicDefaults.DEFAULT_DELETE_RETENTION_MS;
        long segmentBytes = topic.segmentBytes() != null ? topic.segmentBytes() : TopicDefaults.DEFAULT_SEGMENT_BYTES;
        return new CleanerOptions(
                nowMs, retention, lag, segmentBytes, dedupeBufferBytes, DEFAULT_IO_BUFFER_BYTES, indexPolicy);
    }

    /** Largest batch the cleaner reads: a batch's length field is an int, and the buffers double up to this. */
    static final int MAX_IO_BUFFER_BYTES = Integer.MAX_VALUE - 64;
}
