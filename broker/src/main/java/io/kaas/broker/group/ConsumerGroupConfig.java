package io.kaas.broker.group;

import java.util.List;

/**
 * The KIP-848 consumer group protocol's broker settings, named and defaulted as Apache's
 * {@code group.consumer.*} configs.
 *
 * @param heartbeatIntervalMs {@code group.consumer.heartbeat.interval.ms} (5 s): told to members in every heartbeat response
 * @param sessionTimeoutMs    {@code group.consumer.session.timeout.ms} (45 s): a member not heard from for this long is removed
 * @param assignors           {@code group.consumer.assignors}: server-side assignor names; the first is the default
 */
public record ConsumerGroupConfig(int heartbeatIntervalMs, int sessionTimeoutMs, List<String> assignors) {
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 45_000;

    public ConsumerGroupConfig {
        if (heartbeatIntervalMs < 1 || sessionTimeoutMs <= heartbeatIntervalMs) {
            throw new IllegalArgumentException("group.consumer.heartbeat.interval.ms (" + heartbeatIntervalMs
                    + ") must be positive and below group.consumer.session.timeout.ms (" + sessionTimeoutMs + ")");
        }
        assignors = List.copyOf(assignors);
        if (assignors.isEmpty()) {
            throw new IllegalArgumentException("group.consumer.assignors must name at least one assignor");
        }
        assignors.forEach(ServerAssignors::byName);
    }

    /** Apache's defaults: uniform first, then range. */
    public static ConsumerGroupConfig defaults() {
        return new ConsumerGroupConfig(
                DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS, List.of("uniform", "range"));
    }

    public ConsumerGroupConfig withTimeouts(int heartbeatIntervalMs, int sessionTimeoutMs) {
        return new ConsumerGroupConfig(heartbeatIntervalMs, sessionTimeoutMs, assignors);
    }
}
