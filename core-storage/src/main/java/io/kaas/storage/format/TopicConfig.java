package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code <topic>/.config.json}. Every field is optional (null = unset, omitted from the file, the
 * broker default applies). {@link #toKafkaConfigs()} and {@link #withKafkaConfig} translate to and from
 * the Kafka config names the admin APIs use.
 *
 * <p>The typed fields are the configs the engine enforces. {@code otherConfigs} holds every other
 * topic config a client set (Kafka name → value as given), which the engine stores and reports but
 * does not act on; the broker validates them before they get here. A file written before that map
 * existed has no {@code otherConfigs} key and loads as an empty map.
 *
 * <p>The parts around it: {@link TopicConfigFile} reads the file and says when it is damage,
 * {@link TopicDefaults} holds the values an unset field means. Immutable; any thread.
 */
@JsonPropertyOrder({
    "retentionMs",
    "retentionBytes",
    "segmentBytes",
    "segmentMs",
    "cleanupPolicy",
    "minCompactionLagMs",
    "deleteRetentionMs",
    "flushMessages",
    "otherConfigs"
})
public record TopicConfig(
        Long retentionMs,
        Long retentionBytes,
        Long segmentBytes,
        Long segmentMs,
        String cleanupPolicy,
        Long minCompactionLagMs,
        Long deleteRetentionMs,
        Long flushMessages,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> otherConfigs) {
    public static final String FILE_NAME = ".config.json";
    public static final TopicConfig EMPTY = new TopicConfig(null, null, null, null, null, null, null, null);

    public TopicConfig {
        otherConfigs = otherConfigs == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(otherConfigs));
    }

    /** A config with only the typed (enforced) fields. */
    public TopicConfig(
            Long retentionMs,
            Long retentionBytes,
            Long segmentBytes,
            Long segmentMs,
            String cleanupPolicy,
            Long minCompactionLagMs,
            Long deleteRetentionMs,
            Long flushMessages) {
        this(
                retentionMs,
                retentionBytes,
                segmentBytes,
                segmentMs,
                cleanupPolicy,
                minCompactionLagMs,
                deleteRetentionMs,
                flushMessages,
                Map.of());
    }

    /** cleanup.policy holds {@code compact} (alone or with delete): the cleaner compacts it, and its logs may have offset gaps. */
    public boolean compacted() {
        return cleanupPolicy != null && cleanupPolicy.contains("compact");
    }

    /** min.cleanable.dirty.ratio (Apache's default 0.5): the dirty share of the cleanable log that triggers a pass. */
    public double minCleanableDirtyRatio() {
        String v = otherConfigs.get("min.cleanable.dirty.ratio");
        return v == null ? 0.5 : Double.parseDouble(v.trim());
    }

    /** max.compaction.lag.ms (Apache's default: none): a dirty record older than this triggers a pass whatever the ratio. */
    public long maxCompactionLagMs() {
        String v = otherConfigs.get("max.compaction.lag.ms");
        return v == null ? Long.MAX_VALUE : Long.parseLong(v.trim());
    }

    /** message.timestamp.type=LogAppendTime: the broker stamps the batches it appends. */
    public boolean logAppendTime() {
        return "LogAppendTime".equals(otherConfigs.get("message.timestamp.type"));
    }

    /** message.timestamp.before.max.ms: how far behind the broker's clock a CreateTime timestamp may be. */
    public long timestampBeforeMaxMs() {
        String v = otherConfigs.get("message.timestamp.before.max.ms");
        return v == null ? TopicDefaults.DEFAULT_TIMESTAMP_BEFORE_MAX_MS : Long.parseLong(v.trim());
    }

    /** message.timestamp.after.max.ms: how far ahead of the broker's clock a CreateTime timestamp may be. */
    public long timestampAfterMaxMs() {
        String v = otherConfigs.get("message.timestamp.after.max.ms");
        return v == null ? TopicDefaults.DEFAULT_TIMESTAMP_AFTER_MAX_MS : Long.parseLong(v.trim());
    }

    /** Kafka config name → field, in file order. */
    public static final Map<String, String> KAFKA_NAMES = Map.of(
            "retention.ms", "retentionMs",
            "retention.bytes", "retentionBytes",
            "segment.bytes", "segmentBytes",
            "segment.ms", "segmentMs",
            "cleanup.policy", "cleanupPolicy",
            "min.compaction.lag.ms", "minCompactionLagMs",
            "delete.retention.ms", "deleteRetentionMs",
            "flush.messages", "flushMessages");

    /** Set values by their Kafka names. */
    @JsonIgnore
    public Map<String, String> toKafkaConfigs() {
        Map<String, String> out = new LinkedHashMap<>();
        put(out, "retention.ms", retentionMs);
        put(out, "retention.bytes", retentionBytes);
        put(out, "segment.bytes", segmentBytes);
        put(out, "segment.ms", segmentMs);
        put(out, "cleanup.policy", cleanupPolicy);
        put(out, "min.compaction.lag.ms", minCompactionLagMs);
        put(out, "delete.retention.ms", deleteRetentionMs);
        put(out, "flush.messages", flushMessages);
        out.putAll(otherConfigs);
        return out;
    }

    private static void put(Map<String, String> out, String name, Object value) {
        if (value != null) {
            out.put(name, value.toString());
        }
    }

    /**
     * Like {@link #withKafkaConfig}, but a name outside {@link #KAFKA_NAMES} is kept in
     * {@code otherConfigs} instead of refused: for callers that validated the name and value already.
     */
    public TopicConfig withAnyKafkaConfig(String name, String value) {
        if (KAFKA_NAMES.containsKey(name)) {
            return withKafkaConfig(name, value);
        }
        Map<String, String> others = new TreeMap<>(otherConfigs);
        if (value == null) {
            others.remove(name);
        } else {
            others.put(name, value);
        }
        return new TopicConfig(
                retentionMs,
                retentionBytes,
                segmentBytes,
                segmentMs,
                cleanupPolicy,
                minCompactionLagMs,
                deleteRetentionMs,
                flushMessages,
                others);
    }

    /**
     * Returns a copy with one Kafka-named config set ({@code value != null}) or unset ({@code null}).
     *
     * @throws IllegalArgumentException for an unknown name or a value that does not parse
     */
    public TopicConfig withKafkaConfig(String name, String value) {
        Long n = null;
        if (value != null && !name.equals("cleanup.policy")) {
            try {
                n = Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("config " + name + " needs a whole number, got '" + value + "'");
            }
        }
        switch (name) {
            case "retention.ms":
                return new TopicConfig(
                        n,
                        retentionBytes,
                        segmentBytes,
                        segmentMs,
                        cleanupPolicy,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "retention.bytes":
                return new TopicConfig(
                        retentionMs,
                        n,
                        segmentBytes,
                        segmentMs,
                        cleanupPolicy,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "segment.bytes":
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        n,
                        segmentMs,
                        cleanupPolicy,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "segment.ms":
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        segmentBytes,
                        n,
                        cleanupPolicy,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "cleanup.policy":
                if (value != null
                        && !value.equals("delete")
                        && !value.equals("compact")
                        && !value.equals("compact,delete")
                        && !value.equals("delete,compact")) {
                    throw new IllegalArgumentException(
                            "cleanup.policy must be delete, compact or both, got '" + value + "'");
                }
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        segmentBytes,
                        segmentMs,
                        value,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "min.compaction.lag.ms":
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        segmentBytes,
                        segmentMs,
                        cleanupPolicy,
                        n,
                        deleteRetentionMs,
                        flushMessages,
                        otherConfigs);
            case "delete.retention.ms":
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        segmentBytes,
                        segmentMs,
                        cleanupPolicy,
                        minCompactionLagMs,
                        n,
                        flushMessages,
                        otherConfigs);
            case "flush.messages":
                return new TopicConfig(
                        retentionMs,
                        retentionBytes,
                        segmentBytes,
                        segmentMs,
                        cleanupPolicy,
                        minCompactionLagMs,
                        deleteRetentionMs,
                        n,
                        otherConfigs);
            default:
                throw new IllegalArgumentException("unknown topic config " + name);
        }
    }
}
