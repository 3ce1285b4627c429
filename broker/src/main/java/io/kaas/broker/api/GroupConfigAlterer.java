package io.kaas.broker.api;

import io.kaas.broker.group.GroupConfigs;
import io.kaas.protocol.ErrorMapping;
import io.kaas.storage.io.StorageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.coordinator.group.GroupConfig;

/**
 * The alter step of both alter APIs for a GROUP resource: compute the group's new set of configs,
 * validate it as Apache does, write it durably unless validate_only ({@link GroupConfigs}). All of a
 * resource's changes apply or none.
 */
final class GroupConfigAlterer {
    private final GroupConfigs configs;

    GroupConfigAlterer(GroupConfigs configs) {
        this.configs = configs;
    }

    ApiError alter(String groupId, UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        if (groupId == null || groupId.isEmpty()) {
            return new ApiError(Errors.INVALID_REQUEST, "Group name must not be empty");
        }
        try {
            configs.alter(groupId, change, validateOnly);
            return ApiError.NONE;
        } catch (IllegalArgumentException e) {
            return new ApiError(Errors.INVALID_CONFIG, e.getMessage());
        } catch (StorageException e) {
            return new ApiError(ErrorMapping.toKafka(e.kind()), e.getMessage());
        }
    }

    /**
     * IncrementalAlterConfigs' operations (SET, DELETE, APPEND, SUBTRACT) on a group's set configs;
     * APPEND and SUBTRACT only on LIST configs, starting from the current value or else the default.
     */
    static Map<String, String> apply(Map<String, String> current, List<Operation> ops) {
        return apply(current, ops, GroupConfig::configType);
    }

    /** The same over another resource's configs, whose types {@code typeOf} knows. */
    static Map<String, String> apply(
            Map<String, String> current,
            List<Operation> ops,
            java.util.function.Function<String, java.util.Optional<ConfigDef.Type>> typeOf) {
        Map<String, String> out = new LinkedHashMap<>(current);
        for (Operation o : ops) {
            switch (o.op()) {
                case 0 -> out.put(o.name(), o.value());
                case 1 -> out.remove(o.name());
                case 2, 3 -> {
                    if (typeOf.apply(o.name()).orElse(null) != ConfigDef.Type.LIST) {
                        throw new IllegalArgumentException("Can't " + (o.op() == 2 ? "APPEND" : "SUBTRACT") + " to key "
                                + o.name() + " because its type is not LIST.");
                    }
                    List<String> items = new ArrayList<>(split(out.getOrDefault(o.name(), "")));
                    for (String v : split(o.value() == null ? "" : o.value())) {
                        if (o.op() == 2 && !items.contains(v)) {
                            items.add(v);
                        } else if (o.op() == 3) {
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

    /** One IncrementalAlterConfigs operation. */
    record Operation(String name, byte op, String value) {}

    private static List<String> split(String list) {
        return Arrays.stream(list.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
