package io.kaas.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;

/**
 * Group configs (ConfigResource GROUP) as Apache defines them: {@link GroupConfig}'s names, types,
 * defaults and validation, against the broker-level bounds of Apache's {@link GroupCoordinatorConfig}
 * and {@link ShareGroupConfig}. kaas's broker settings for consumer groups (session timeout, heartbeat
 * interval) are the defaults of the matching group configs, as Apache's broker configs are; every
 * other broker-level group setting is Apache's default.
 */
public final class ApacheGroupConfigs {
    /** One config as DescribeConfigs reports it for a group. */
    public record Entry(
            String name, String value, byte source, byte type, String documentation, List<Synonym> synonyms) {}

    /** A synonym: the group's own value, or the broker config that gives the default. */
    public record Synonym(String name, String value, byte source) {}

    private final GroupCoordinatorConfig coordinator;
    private final ShareGroupConfig share;
    private final Map<String, Object> defaults;

    public ApacheGroupConfigs(ConsumerGroupConfig consumer) {
        ConfigDef def = new ConfigDef(GroupCoordinatorConfig.CONFIG_DEF);
        ShareGroupConfig.CONFIG_DEF.configKeys().values().forEach(def::define);
        Map<String, Object> broker = new LinkedHashMap<>();
        int session = consumer.sessionTimeoutMs();
        int heartbeat = consumer.heartbeatIntervalMs();
        broker.put(GroupCoordinatorConfig.CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG, session);
        broker.put(GroupCoordinatorConfig.CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG, heartbeat);
        // kaas's settings may lie outside Apache's default bounds (tests run with short timeouts): widen them.
        broker.put(
                GroupCoordinatorConfig.CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG,
                Math.min(session, GroupCoordinatorConfig.CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT));
        broker.put(
                GroupCoordinatorConfig.CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG,
                Math.max(session, GroupCoordinatorConfig.CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT));
        broker.put(
                GroupCoordinatorConfig.CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG,
                Math.min(heartbeat, GroupCoordinatorConfig.CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT));
        broker.put(
                GroupCoordinatorConfig.CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG,
                Math.max(heartbeat, GroupCoordinatorConfig.CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT));
        AbstractConfig parsed = new AbstractConfig(def, broker, false);
        this.coordinator = new GroupCoordinatorConfig(parsed);
        this.share = new ShareGroupConfig(parsed);
        Map<String, Object> d = new LinkedHashMap<>();
        for (String name : GroupConfig.configNames()) {
            Optional<String> synonym = GroupConfig.brokerSynonym(name);
            ConfigDef.Type type = GroupConfig.configType(name).orElse(null);
            Object value = synonym.filter(parsed.values()::containsKey)
                    .map(parsed.values()::get)
                    .orElse(null);
            if (value instanceof List<?> list && type != ConfigDef.Type.LIST) {
                value = list.isEmpty() ? null : list.get(0); // group.streams.assignors → streams.assignor.name
            }
            if (value != null) {
                d.put(name, value);
            }
        }
        this.defaults = Map.copyOf(d);
    }

    /**
     * Checks a group's whole proposed set of configs as Apache's controller does; an
     * {@link IllegalArgumentException} with Apache's message otherwise.
     */
    public void validate(Map<String, String> proposed) {
        List<String> nulls = proposed.entrySet().stream()
                .filter(e -> e.getValue() == null)
                .map(Map.Entry::getKey)
                .toList();
        if (!nulls.isEmpty()) {
            throw new IllegalArgumentException(
                    "Null value not supported for group configs: " + String.join(",", nulls));
        }
        try {
            GroupConfig.validate(proposed, coordinator, share);
        } catch (ConfigException | InvalidConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The group's effective configs: its own over the broker's defaults. */
    public GroupConfig effective(Map<String, String> overrides) {
        Properties props = new Properties();
        props.putAll(overrides);
        return GroupConfig.fromProps(defaults, props);
    }

    /** Every public group config with its value and source, as Apache's DescribeConfigs reports them. */
    public List<Entry> describe(Map<String, String> overrides) {
        GroupConfig effective = effective(overrides);
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, ?> e : effective.values().entrySet()) {
            String name = e.getKey();
            if (GroupConfig.isInternal(name)) {
                continue;
            }
            ConfigDef.Type type = GroupConfig.configType(name).orElse(null);
            String value = ConfigDef.convertToString(e.getValue(), type);
            List<Synonym> synonyms = new ArrayList<>();
            if (overrides.containsKey(name)) {
                synonyms.add(new Synonym(name, value, DescribeConfigsResponse.ConfigSource.GROUP_CONFIG.id()));
            }
            Optional<String> broker = GroupConfig.brokerSynonym(name);
            Object brokerValue = defaults.get(name);
            broker.ifPresent(b -> synonyms.add(new Synonym(
                    b,
                    brokerValue == null ? null : ConfigDef.convertToString(brokerValue, type),
                    DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id())));
            if (synonyms.isEmpty()) {
                synonyms.add(new Synonym(name, value, DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id()));
            }
            out.add(new Entry(
                    name,
                    value,
                    synonyms.get(0).source(),
                    configType(type),
                    GroupConfig.CONFIG_DEF.configKeys().get(name).documentation,
                    List.copyOf(synonyms)));
        }
        return out;
    }

    private static byte configType(ConfigDef.Type type) {
        if (type == null) {
            return DescribeConfigsResponse.ConfigType.UNKNOWN.id();
        }
        return switch (type) {
            case BOOLEAN -> DescribeConfigsResponse.ConfigType.BOOLEAN.id();
            case STRING -> DescribeConfigsResponse.ConfigType.STRING.id();
            case INT -> DescribeConfigsResponse.ConfigType.INT.id();
            case SHORT -> DescribeConfigsResponse.ConfigType.SHORT.id();
            case LONG -> DescribeConfigsResponse.ConfigType.LONG.id();
            case DOUBLE -> DescribeConfigsResponse.ConfigType.DOUBLE.id();
            case LIST -> DescribeConfigsResponse.ConfigType.LIST.id();
            case CLASS -> DescribeConfigsResponse.ConfigType.CLASS.id();
            case PASSWORD -> DescribeConfigsResponse.ConfigType.PASSWORD.id();
        };
    }
}
