package io.kaas.storage.format;

/**
 * Apache Kafka's broker defaults for the topic configs a {@link TopicConfig} leaves unset (null), the values
 * the engine applies then. The broker's tests pin each against kafka's own {@code LogConfig} definitions.
 *
 * <p>Constants only.
 */
public final class TopicDefaults {
    private TopicDefaults() {}

    /** segment.bytes: 1 GiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 1L << 30;

    /** retention.ms: log.retention.hours = 168. */
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;

    /** retention.bytes: no limit. */
    public static final long DEFAULT_RETENTION_BYTES = -1;

    /** segment.ms: log.roll.hours = 168. */
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;

    /** delete.retention.ms: a day. */
    public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;

    public static final long DEFAULT_MIN_COMPACTION_LAG_MS = 0;
    public static final String DEFAULT_CLEANUP_POLICY = "delete";

    /** Apache Kafka 4.x's log.message.timestamp.after.max.ms (KIP-937): a CreateTime record at most an hour ahead. */
    public static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 3_600_000L;

    public static final long DEFAULT_TIMESTAMP_BEFORE_MAX_MS = Long.MAX_VALUE;
}
