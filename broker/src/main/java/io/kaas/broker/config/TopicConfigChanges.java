package io.kaas.broker.config;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.LogDirs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns what a client asks for (CreateTopics' configs, IncrementalAlterConfigs' operations, legacy
 * AlterConfigs' replacement set) into the engine's {@link TopicConfig}, after Apache's validation of
 * the whole resulting set. Values are stored as Apache reports them once parsed ("compact, delete" →
 * "compact,delete"). Every failure is an {@link IllegalArgumentException} whose message names the
 * key and the rule; the handlers answer it as INVALID_CONFIG.
 */
public final class TopicConfigChanges {
    /** IncrementalAlterConfigs' operation codes (KIP-339). */
    public static final byte SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3;

    public record Operation(String name, byte op, String value) {}

    private TopicConfigChanges() {}

    /** A topic's config from the complete set of values it should have (names as Kafka spells them). */
    public static TopicConfig build(Map<String, String> existing, Map<String, String> proposed) {
        List<String> nulls = proposed.entrySet().stream()
                .filter(e -> e.getValue() == null)
                .map(Map.Entry::getKey)
                .toList();
        if (!nulls.isEmpty()) {
            // Apache's controller message for the same request.
            throw new IllegalArgumentException(
                    "Null value not supported for topic configs: " + String.join(",", nulls));
        }
        ApacheTopicConfigs.validate(withoutPin(existing), withoutPin(proposed));
        TopicConfig out = TopicConfig.EMPTY;
        for (Map.Entry<String, String> e : proposed.entrySet()) {
            String value = e.getKey().equals(LogDirs.PIN_CONFIG)
                    ? pinValue(e.getValue())
                    : ApacheTopicConfigs.canonical(e.getKey(), e.getValue());
            if (e.getKey().equals("cleanup.policy") && value.isEmpty()) {
                throw new IllegalArgumentException(
                        "Invalid value for configuration cleanup.policy: an empty list (neither "
                                + "delete nor compact) is valid in Apache Kafka but kaas does not support it; use delete, compact or both");
            }
            out = out.withAnyKafkaConfig(e.getKey(), value);
        }
        return out;
    }

    /**
     * The set without kaas's {@link LogDirs#PIN_CONFIG}, which Apache's LogConfig does not know (its placement is the
     * controller's, KIP-113): the pin's names are checked against the pool when a partition is placed.
     */
    private static Map<String, String> withoutPin(Map<String, String> configs) {
        if (!configs.containsKey(LogDirs.PIN_CONFIG)) {
            return configs;
        }
        Map<String, String> out = new LinkedHashMap<>(configs);
        out.remove(LogDirs.PIN_CONFIG);
        return out;
    }

    /** {@code a, b} → {@code a,b}; empty names are refused. */
    private static String pinValue(String value) {
        List<String> names = split(value);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + LogDirs.PIN_CONFIG
                    + ": name one log dir or more");
        }
        return String.join(",", names);
    }

    /**
     * Applies IncrementalAlterConfigs operations to {@code current} (the topic's set values) and returns
     * the resulting set. APPEND and SUBTRACT work on list configs only, starting from the current value
     * or else Apache's default, as Apache's controller does; DELETE of a name that is not set is a no-op.
     */
    public static Map<String, String> apply(Map<String, String> current, List<Operation> ops) {
        Map<String, String> out = new LinkedHashMap<>(current);
        for (Operation o : ops) {
            switch (o.op()) {
                case SET -> out.put(o.name(), o.value());
                case DELETE -> out.remove(o.name());
                case APPEND, SUBTRACT -> {
                    String opName = o.op() == APPEND ? "APPEND" : "SUBTRACT";
                    if (!ApacheTopicConfigs.isTopicConfig(o.name()) || !ApacheTopicConfigs.isList(o.name())) {
                        throw new IllegalArgumentException(
                                "Can't " + opName + " to key " + o.name() + " because its type is not LIST.");
                    }
                    String base =
                            out.containsKey(o.name()) ? out.get(o.name()) : ApacheTopicConfigs.defaultValue(o.name());
                    List<String> items = new ArrayList<>(split(base));
                    for (String v : split(o.value() == null ? "" : o.value())) {
                        if (o.op() == APPEND && !items.contains(v)) {
                            items.add(v);
                        } else if (o.op() == SUBTRACT) {
                            items.remove(v);
                        }
                    }
                    out.put(o.name(), String.join(",", items));
                }
                default ->
                    throw new IllegalArgumentException(
                            "Unknown alter config operation " + o.op() + " for key " + o.name());
            }
        }
        return out;
    }

    private static List<String> split(String list) {
        return Arrays.stream(list.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
