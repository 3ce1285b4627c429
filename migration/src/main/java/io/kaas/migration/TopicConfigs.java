package io.kaas.migration;

import io.kaas.storage.format.TopicConfig;
import java.util.HashMap;
import java.util.Map;

/** Apache's topic configs (by their Kafka names, as ConfigRecords hold them) as kaas's {@code .config.json}. */
final class TopicConfigs {
    private TopicConfigs() {}

    static TopicConfig of(Map<String, String> kafka) {
        Map<String, String> other = new HashMap<>(kafka);
        TopicConfig c = new TopicConfig(
                longOf(other.remove("retention.ms")),
                longOf(other.remove("retention.bytes")),
                longOf(other.remove("segment.bytes")),
                longOf(other.remove("segment.ms")),
                other.remove("cleanup.policy"),
                longOf(other.remove("min.compaction.lag.ms")),
                longOf(other.remove("delete.retention.ms")),
                longOf(other.remove("flush.messages")),
                other);
        if (!TopicConfig.KAFKA_NAMES.keySet().stream().allMatch(k -> !other.containsKey(k))) {
            throw new IllegalStateException("a typed topic config was left in otherConfigs");
        }
        return c;
    }

    private static Long longOf(String v) {
        return v == null ? null : Long.valueOf(v.trim());
    }
}
