package io.kaas.broker.api;

import io.kaas.broker.config.TopicConfigChanges;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.server.config.QuotaConfig;

/**
 * Apache's broker-level replication throttles ({@code leader/follower.replication.throttled.rate},
 * {@code replica.alter.log.dirs.io.max.bytes.per.second}), which {@code kafka-reassign-partitions} clears with
 * IncrementalAlterConfigs on every broker after {@code --verify} or {@code --cancel}. kaas moves a partition without
 * copying it (one copy, on the volume its brokers share), so no throttle is ever set: clearing one does nothing
 * and succeeds; setting one ({@code --throttle}) is refused, saying why. (The topic-level
 * {@code *.replication.throttled.replicas} are topic configs, stored and reported like any.)
 */
final class ReplicationThrottles {
    static final Set<String> BROKER_LEVEL = Set.of(
            QuotaConfig.LEADER_REPLICATION_THROTTLED_RATE_CONFIG,
            QuotaConfig.FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG,
            QuotaConfig.REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_CONFIG);

    private ReplicationThrottles() {}

    /** Whether {@code ops}, on a BROKER resource, touch replication throttles only (then {@link #answer} answers them). */
    static boolean onlyThrottles(List<TopicConfigChanges.Operation> ops) {
        return !ops.isEmpty() && ops.stream().allMatch(o -> BROKER_LEVEL.contains(o.name()));
    }

    /** NONE when {@code ops} only clear throttles; INVALID_CONFIG, with why, when one sets one. */
    static ApiError answer(List<TopicConfigChanges.Operation> ops) {
        for (TopicConfigChanges.Operation o : ops) {
            if (o.op() != AlterConfigOp.OpType.DELETE.id()) {
                return new ApiError(
                        Errors.INVALID_CONFIG,
                        o.name() + ": kaas moves a partition without copying it (one copy, on the "
                                + "volume its brokers share), so there is no replication to throttle; reassign without --throttle");
            }
        }
        return ApiError.NONE;
    }
}
