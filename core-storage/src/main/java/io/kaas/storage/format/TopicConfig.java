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

    /** Apache Kafka's broker defaults for unset topic configs (log.retention.hours, log.roll.hours = 168). */
    /** Apache's segment.bytes default (1 GiB). */
    public static final long DEFAULT_SEGMENT_BYTES = 1L << 30;

    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;

    public static final long DEFAULT_RETENTION_BYTES = -1;
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;
    public static final long DEFAULT_MIN_COMPACTION_LAG_MS = 0;
    public static final String DEFAULT_CLEANUP_POLICY = "delete";

    /** Apache Kafka 4.x's log.message.timestamp.after.max.ms (KIP-937): a CreateTime record at most an hour ahead. */
    public static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 3_600_000L;

    public static final long DEFAULT_TIMESTAMP_BEFORE_MAX_MS = Long.MAX_VALUE;

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

    /**
     * What in this config (as read from a file) the engine could not apply: a cleanup.policy outside
     * Apache's values, or a number-valued config that does not parse. Empty when it is sound.
     */
    @JsonIgnore
    public java.util.List<String> problems() {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (cleanupPolicy != null) {
            try {
                EMPTY.withKafkaConfig("cleanup.policy", cleanupPolicy);
            } catch (IllegalArgumentException e) {
                out.add(e.getMessage());
            }
        }
        java.util.List<java.util.function.Supplier<Object>> parsed = java.util.List.of(
                this::minCleanableDirtyRatio,
                this::maxCompactionLagMs,
                this::timestampBeforeMaxMs,
                this::timestampAfterMaxMs);
        java.util.List<String> names = java.util.List.of(
                "min.cleanable.dirty.ratio",
                "max.compaction.lag.ms",
                "message.timestamp.before.max.ms",
                "message.timestamp.after.max.ms");
        for (int i = 0; i < parsed.size(); i++) {
            try {
                // Parsed only to see whether it parses: the value is read where it is used.
                var unused = parsed.get(i).get();
            } catch (NumberFormatException e) {
                out.add("config " + names.get(i) + " needs a number, got '" + otherConfigs.get(names.get(i)) + "'");
            }
        }
        return out;
    }

    /**
     * The config of the topic a partition directory belongs to ({@code ../.config.json}); EMPTY when there is none.
     *
     * @throws io.kaas.storage.io.StorageException DAMAGED when the file is damaged ({@link #readTopicDir}), IO when it cannot be read
     */
    public static TopicConfig ofPartitionDir(java.nio.file.Path partitionDir) {
        java.nio.file.Path topicDir = partitionDir.toAbsolutePath().getParent();
        return topicDir == null ? EMPTY : readTopicDir(topicDir).orElse(EMPTY);
    }

    /**
     * The topic's {@code .config.json}; empty when there is none (an Apache log dir, an older data dir: the
     * defaults apply). A file that does not parse, or holds values the engine cannot apply, is damage to the
     * topic, never guessed around: its cleanup policy is not derivable from the log, and a compacted topic
     * read as delete-policy would lose keys to retention. So every tool refuses the topic's partitions.
     *
     * @throws io.kaas.storage.io.StorageException DAMAGED with {@code FILE:0: what}; IO when the file cannot be read
     */
    public static java.util.Optional<TopicConfig> readTopicDir(java.nio.file.Path topicDir) {
        java.nio.file.Path file = topicDir.resolve(FILE_NAME);
        byte[] bytes;
        try {
            bytes = java.nio.file.Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            return java.util.Optional.empty();
        } catch (java.io.IOException e) {
            throw new io.kaas.storage.io.StorageException(
                    io.kaas.storage.io.StorageException.Kind.IO,
                    file + ": cannot read: " + io.kaas.storage.io.IoFailure.describe(e),
                    e);
        }
        TopicConfig config;
        try {
            config = StateJson.fromBytes(bytes, TopicConfig.class);
        } catch (java.io.IOException | RuntimeException e) {
            throw damaged(file, "not a valid topic config (" + firstLine(e.getMessage()) + ")");
        }
        if (config == null) {
            throw damaged(file, "not a valid topic config (no value)");
        }
        java.util.Optional<String> unknown = unknownField(bytes);
        if (unknown.isPresent()) {
            // no version of the file has other fields: a damaged name (a flipped bit in "cleanupPolicy") would
            // otherwise read as unset, turning a compacted topic into a delete-policy one
            throw damaged(file, "unknown field \"" + unknown.get() + "\"");
        }
        java.util.List<String> problems = config.problems();
        if (!problems.isEmpty()) {
            throw damaged(file, String.join("; ", problems));
        }
        return java.util.Optional.of(config);
    }

    /** The damage line of the topic's {@code .config.json} ({@code FILE:0: what}, see {@link #readTopicDir}), or empty. */
    public static java.util.Optional<String> damageOf(java.nio.file.Path topicDir) {
        try {
            readTopicDir(topicDir);
            return java.util.Optional.empty();
        } catch (io.kaas.storage.io.StorageException e) {
            if (e.kind() == io.kaas.storage.io.StorageException.Kind.DAMAGED) {
                return java.util.Optional.of(e.getMessage());
            }
            throw e;
        }
    }

    private static io.kaas.storage.io.StorageException damaged(java.nio.file.Path file, String what) {
        return new io.kaas.storage.io.StorageException(
                io.kaas.storage.io.StorageException.Kind.DAMAGED,
                file + ":0: " + what
                        + "; the topic's cleanup policy is unknown, so its partitions stay untouched: restore or fix the file"
                        + " (without it the defaults apply, cleanup.policy=delete); recover --force does not change it");
    }

    private static java.util.Optional<String> unknownField(byte[] json) {
        java.util.Set<String> known = new java.util.HashSet<>();
        for (java.lang.reflect.RecordComponent c : TopicConfig.class.getRecordComponents()) {
            known.add(c.getName());
        }
        // The top-level keys in file order, streamed: no jackson-databind on kaas verify's path (StateJson).
        try (com.fasterxml.jackson.core.JsonParser parser =
                new com.fasterxml.jackson.core.JsonFactory().createParser(json)) {
            parser.nextToken();
            for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                if (!known.contains(name)) {
                    return java.util.Optional.of(name);
                }
                parser.nextToken();
                parser.skipChildren();
            }
            return java.util.Optional.empty();
        } catch (java.io.IOException e) {
            return java.util.Optional.of("?"); // parsed as a config just before: not reached
        }
    }

    private static String firstLine(String message) {
        return message == null ? "unparseable" : message.lines().findFirst().orElse(message);
    }

    /** message.timestamp.type=LogAppendTime: the broker stamps the batches it appends. */
    public boolean logAppendTime() {
        return "LogAppendTime".equals(otherConfigs.get("message.timestamp.type"));
    }

    /** message.timestamp.before.max.ms: how far behind the broker's clock a CreateTime timestamp may be. */
    public long timestampBeforeMaxMs() {
        String v = otherConfigs.get("message.timestamp.before.max.ms");
        return v == null ? DEFAULT_TIMESTAMP_BEFORE_MAX_MS : Long.parseLong(v.trim());
    }

    /** message.timestamp.after.max.ms: how far ahead of the broker's clock a CreateTime timestamp may be. */
    public long timestampAfterMaxMs() {
        String v = otherConfigs.get("message.timestamp.after.max.ms");
        return v == null ? DEFAULT_TIMESTAMP_AFTER_MAX_MS : Long.parseLong(v.trim());
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
