package io.kaas.broker.config;

import io.kaas.cluster.Endpoint;
import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.apache.kafka.storage.internals.log.LogConfig;

/**
 * The broker's configs under Apache's names, for DescribeConfigs on the BROKER resource: kaas's own
 * settings (STATIC_BROKER_CONFIG) over Apache's defaults for the log configs (LogConfig's server
 * definitions and the broker-level synonym of every topic config; DEFAULT_CONFIG). All read-only:
 * kaas has no dynamic broker configs.
 */
public final class BrokerConfigView {
    public record Entry(String name, String value, byte source, byte type) {}

    private BrokerConfigView() {}

    /** kaas's settings by Apache name: what a server.properties would have set. */
    public static Map<String, String> staticSettings(BrokerConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("node.id", Integer.toString(c.brokerId()));
        m.put("broker.id", Integer.toString(c.brokerId()));
        m.put("listeners", c.listeners().stream().map(Endpoint::toString).collect(Collectors.joining(",")));
        m.put(
                "advertised.listeners",
                c.advertisedListeners().stream().map(Endpoint::toString).collect(Collectors.joining(",")));
        m.put(
                "log.dirs",
                c.inMemory()
                        ? "(in memory)"
                        : c.pool().dirs().stream()
                                .map(d -> d.path().toAbsolutePath().toString())
                                .collect(Collectors.joining(",")));
        m.put("num.partitions", Integer.toString(c.defaultPartitions()));
        m.put("auto.create.topics.enable", Boolean.toString(c.autoCreateTopics()));
        m.put("log.segment.bytes", Long.toString(c.segmentBytes()));
        m.put("log.flush.interval.messages", Long.toString(c.flushIntervalMessages()));
        m.put(
                "log.retention.check.interval.ms",
                Long.toString(c.retentionCheckInterval().toMillis()));
        m.put("log.cleaner.enable", Boolean.toString(c.cleaner().threads() > 0));
        m.put("log.cleaner.threads", Integer.toString(c.cleaner().threads()));
        m.put("log.cleaner.dedupe.buffer.size", Long.toString(c.cleaner().dedupeBufferBytes()));
        m.put("log.cleaner.io.buffer.size", Integer.toString(c.cleaner().ioBufferBytes()));
        m.put("log.cleaner.backoff.ms", Long.toString(c.cleaner().backoff().toMillis()));
        m.put("socket.request.max.bytes", Integer.toString(c.socketRequestMaxBytes()));
        m.put("socket.send.buffer.bytes", Integer.toString(c.socketBuffers().sendBytes()));
        m.put("socket.receive.buffer.bytes", Integer.toString(c.socketBuffers().receiveBytes()));
        m.put("max.incremental.fetch.session.cache.slots", Integer.toString(c.fetchSessionCacheSlots()));
        m.put("default.replication.factor", "1");
        m.put("min.insync.replicas", "1");
        return m;
    }

    /**
     * The broker-level log settings kaas runs with that differ from Apache's default: the topic configs
     * they back report them as STATIC_BROKER_CONFIG (kaas fsyncs every message by default, Apache never).
     */
    public static Map<String, String> staticLogOverrides(BrokerConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        Map<String, ConfigDef.ConfigKey> server = LogConfig.SERVER_CONFIG_DEF.configKeys();
        staticSettings(c).forEach((name, value) -> {
            ConfigDef.ConfigKey k = server.get(name);
            if (k != null && !value.equals(ConfigDef.convertToString(k.defaultValue, k.type))) {
                m.put(name, value);
            }
        });
        return m;
    }

    /**
     * The DEFAULT_CONFIG synonym Apache reports under a topic config: its first broker-level synonym
     * with a default (log.retention.hours=168 for retention.ms, whose .ms and .minutes have none).
     * A synonym LogConfig does not define at server level (message.max.bytes, log.cleaner.*) defaults
     * to the topic config's own default.
     */
    public static Optional<Map.Entry<String, String>> serverDefaultSynonym(String topicConfig) {
        Map<String, ConfigDef.ConfigKey> server = LogConfig.SERVER_CONFIG_DEF.configKeys();
        for (String name : ApacheTopicConfigs.serverSynonyms(topicConfig)) {
            ConfigDef.ConfigKey k = server.get(name);
            if (k == null) {
                return Optional.of(
                        new AbstractMap.SimpleImmutableEntry<>(name, ApacheTopicConfigs.defaultValue(topicConfig)));
            }
            if (k.defaultValue != null) {
                return Optional.of(new AbstractMap.SimpleImmutableEntry<>(
                        name, ConfigDef.convertToString(k.defaultValue, k.type)));
            }
        }
        return Optional.empty();
    }

    /** Every broker config reported, by name (sorted): Apache's defaults with kaas's settings over them. */
    public static Map<String, Entry> of(BrokerConfig c) {
        Map<String, Entry> out = new TreeMap<>();
        LogConfig.SERVER_CONFIG_DEF
                .configKeys()
                .forEach((name, k) -> out.put(
                        name,
                        new Entry(
                                name,
                                ConfigDef.convertToString(k.defaultValue, k.type),
                                ConfigSource.DEFAULT_CONFIG.id(),
                                ApacheTopicConfigs.wireType(k.type))));
        for (String topicConfig : ApacheTopicConfigs.names()) {
            List<String> synonyms = ApacheTopicConfigs.serverSynonyms(topicConfig);
            for (String name : synonyms) {
                if (!out.containsKey(name)) {
                    boolean last = name.equals(synonyms.get(synonyms.size() - 1));
                    out.put(
                            name,
                            new Entry(
                                    name,
                                    last ? ApacheTopicConfigs.defaultValue(topicConfig) : null,
                                    ConfigSource.DEFAULT_CONFIG.id(),
                                    ApacheTopicConfigs.wireType(topicConfig)));
                }
            }
        }
        staticSettings(c).forEach((name, value) -> {
            Entry known = out.get(name);
            out.put(
                    name,
                    new Entry(
                            name,
                            value,
                            ConfigSource.STATIC_BROKER_CONFIG.id(),
                            known != null ? known.type() : ConfigType.STRING.id()));
        });
        return out;
    }
}
