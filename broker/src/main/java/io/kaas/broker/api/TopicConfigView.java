package io.kaas.broker.api;

import io.kaas.broker.BrokerConfig;
import io.kaas.storage.format.TopicConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A topic's effective configs by Kafka name: the value in {@code .config.json} when set (source
 * DYNAMIC_TOPIC_CONFIG), else the default the engine applies (DEFAULT_CONFIG): Apache's, except
 * segment.bytes and flush.messages (this broker's settings). The defaults are the engine's own
 * (TopicConfig.DEFAULT_*), so what is reported is what is applied.
 */
public final class TopicConfigView {
    /** Kafka's ConfigSource / ConfigType wire values. */
    public static final byte SOURCE_TOPIC = 1, SOURCE_STATIC_BROKER = 4, SOURCE_DEFAULT = 5;
    public static final byte TYPE_STRING = 2, TYPE_LONG = 5, TYPE_LIST = 7;

    public record Entry(String name, String value, byte source, byte type) {}

    private final BrokerConfig broker;

    public TopicConfigView(BrokerConfig broker) {
        this.broker = broker;
    }

    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("retention.ms", Long.toString(TopicConfig.DEFAULT_RETENTION_MS));
        d.put("retention.bytes", Long.toString(TopicConfig.DEFAULT_RETENTION_BYTES));
        d.put("segment.bytes", Long.toString(broker.segmentBytes()));
        d.put("segment.ms", Long.toString(TopicConfig.DEFAULT_SEGMENT_MS));
        d.put("cleanup.policy", TopicConfig.DEFAULT_CLEANUP_POLICY);
        d.put("min.compaction.lag.ms", Long.toString(TopicConfig.DEFAULT_MIN_COMPACTION_LAG_MS));
        d.put("delete.retention.ms", Long.toString(TopicConfig.DEFAULT_DELETE_RETENTION_MS));
        d.put("flush.messages", Long.toString(broker.flushIntervalMessages()));
        return d;
    }

    public Map<String, Entry> effective(TopicConfig config) {
        Map<String, String> set = config.toKafkaConfigs();
        Map<String, Entry> out = new LinkedHashMap<>();
        defaults().forEach((name, def) -> {
            byte type = name.equals("cleanup.policy") ? TYPE_LIST : TYPE_LONG;
            String v = set.get(name);
            out.put(name, v != null ? new Entry(name, v, SOURCE_TOPIC, type) : new Entry(name, def, SOURCE_DEFAULT, type));
        });
        return out;
    }

    /** Builds a config from CreateTopics' name/value pairs. @throws IllegalArgumentException for unknown names or bad values */
    public static TopicConfig parse(Map<String, String> kafkaConfigs) {
        TopicConfig c = TopicConfig.EMPTY;
        for (Map.Entry<String, String> e : kafkaConfigs.entrySet()) {
            c = c.withKafkaConfig(e.getKey(), e.getValue());
        }
        return c;
    }
}
