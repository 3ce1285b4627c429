package io.kaas.broker.config;

import io.kaas.storage.format.TopicConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * A topic's effective configs, every one Apache's LogConfig defines, as Apache's DescribeConfigs
 * reports them: the topic's own value when set (TOPIC_CONFIG); else this broker's static setting of
 * the config's broker-level synonym (STATIC_BROKER_CONFIG: log.segment.bytes and
 * log.flush.interval.messages, where kaas is configured off Apache's default); else Apache's default
 * (DEFAULT_CONFIG). Synonyms list those layers highest first, under their broker-level names where
 * they come from the broker (log.retention.hours=168 for retention.ms), as Apache does.
 */
public final class TopicConfigView {
    public record Synonym(String name, String value, byte source) {}

    public record Entry(
            String name, String value, byte source, byte type, List<Synonym> synonyms, String documentation) {
        public boolean isDefault() {
            return source == ConfigSource.DEFAULT_CONFIG.id();
        }
    }

    private final BrokerConfig broker;

    public TopicConfigView(BrokerConfig broker) {
        this.broker = broker;
    }

    /** Effective entries for a topic, in LogConfig's order. */
    public Map<String, Entry> effective(TopicConfig config) {
        Map<String, String> set = config.toKafkaConfigs();
        Map<String, String> brokerStatic = BrokerConfigView.staticLogOverrides(broker);
        Map<String, Entry> out = new LinkedHashMap<>();
        for (String name : ApacheTopicConfigs.names()) {
            List<Synonym> synonyms = new ArrayList<>();
            if (set.containsKey(name)) {
                synonyms.add(new Synonym(name, set.get(name), ConfigSource.TOPIC_CONFIG.id()));
            }
            String brokerValue = null;
            for (String serverName : ApacheTopicConfigs.serverSynonyms(name)) {
                if (brokerStatic.containsKey(serverName)) {
                    brokerValue = brokerStatic.get(serverName);
                    synonyms.add(new Synonym(serverName, brokerValue, ConfigSource.STATIC_BROKER_CONFIG.id()));
                }
            }
            BrokerConfigView.serverDefaultSynonym(name)
                    .ifPresent(
                            d -> synonyms.add(new Synonym(d.getKey(), d.getValue(), ConfigSource.DEFAULT_CONFIG.id())));
            String value = set.containsKey(name)
                    ? set.get(name)
                    : brokerValue != null ? brokerValue : ApacheTopicConfigs.defaultValue(name);
            byte source = synonyms.isEmpty()
                    ? ConfigSource.DEFAULT_CONFIG.id()
                    : synonyms.get(0).source();
            out.put(
                    name,
                    new Entry(
                            name,
                            value,
                            source,
                            ApacheTopicConfigs.wireType(name),
                            List.copyOf(synonyms),
                            ApacheTopicConfigs.documentation(name)));
        }
        return out;
    }

    /** The value the topic runs with: its own, else this broker's, else Apache's default. */
    public String value(TopicConfig config, String name) {
        return effective(config).get(name).value();
    }
}
