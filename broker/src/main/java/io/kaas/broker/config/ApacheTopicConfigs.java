package io.kaas.broker.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;

/**
 * Apache Kafka's topic-config definitions, read from its own {@link LogConfig} (names, types,
 * defaults, validators, documentation) and {@link ServerTopicConfigSynonyms} (the broker-level name
 * behind each topic config), so that what kaas accepts, rejects and reports cannot drift from the
 * Kafka version it speaks. Nothing here knows which configs the engine enforces.
 */
public final class ApacheTopicConfigs {
    private ApacheTopicConfigs() {}

    /** Every topic config a client may set and DescribeConfigs reports (LogConfig's internal ones excluded). */
    public static List<String> names() {
        return LogConfig.nonInternalConfigNames();
    }

    public static boolean isTopicConfig(String name) {
        return names().contains(name);
    }

    public static ConfigDef.Type type(String name) {
        return key(name).type;
    }

    public static boolean isList(String name) {
        return type(name) == ConfigDef.Type.LIST;
    }

    /** Apache's default, as DescribeConfigs shows it (a list joined by commas; an empty list is ""). */
    public static String defaultValue(String name) {
        ConfigDef.ConfigKey k = key(name);
        return ConfigDef.convertToString(k.defaultValue, k.type);
    }

    public static String documentation(String name) {
        return key(name).documentation;
    }

    /** DescribeConfigs' wire type for {@code name}. */
    public static byte wireType(String name) {
        return wireType(type(name));
    }

    public static byte wireType(ConfigDef.Type type) {
        DescribeConfigsResponse.ConfigType t = switch (type) {
            case BOOLEAN -> DescribeConfigsResponse.ConfigType.BOOLEAN;
            case STRING -> DescribeConfigsResponse.ConfigType.STRING;
            case INT -> DescribeConfigsResponse.ConfigType.INT;
            case SHORT -> DescribeConfigsResponse.ConfigType.SHORT;
            case LONG -> DescribeConfigsResponse.ConfigType.LONG;
            case DOUBLE -> DescribeConfigsResponse.ConfigType.DOUBLE;
            case LIST -> DescribeConfigsResponse.ConfigType.LIST;
            case CLASS -> DescribeConfigsResponse.ConfigType.CLASS;
            case PASSWORD -> DescribeConfigsResponse.ConfigType.PASSWORD;
        };
        return t.id();
    }

    /** The broker-level configs behind a topic config, highest precedence first (log.retention.ms, .minutes, .hours). */
    public static List<String> serverSynonyms(String name) {
        return ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.getOrDefault(name, List.of()).stream()
                .map(ConfigSynonym::name)
                .toList();
    }

    /**
     * A value as Apache stores and reports it once parsed: {@code " 1000"} → {@code "1000"},
     * {@code "compact, delete"} → {@code "compact,delete"}. Call after {@link #validate}.
     */
    public static String canonical(String name, String value) {
        ConfigDef.Type t = type(name);
        return ConfigDef.convertToString(ConfigDef.parseType(name, value, t), t);
    }

    /**
     * Checks a topic's complete set of configs the way Apache's controller does before it accepts a
     * CreateTopics or an alter: every name known, every value of its type and within its validator,
     * and the cross-config rules (local retention not above retention, tiered storage off here).
     *
     * @throws IllegalArgumentException with Apache's own message, e.g. "Invalid value Foo for
     *     configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"
     */
    public static void validate(Map<String, String> existing, Map<String, String> proposed) {
        try {
            // remoteStorageSystemEnable = false: kaas has no tiered storage (KIP-405).
            LogConfig.validate(existing, proposed, Map.of(), false);
        } catch (ConfigException | InvalidConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static ConfigDef.ConfigKey key(String name) {
        return Optional.ofNullable(LogConfig.configKeys().get(name))
                .orElseThrow(() -> new IllegalArgumentException("Unknown topic config name: " + name));
    }
}
