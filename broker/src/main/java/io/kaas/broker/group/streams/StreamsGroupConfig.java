package io.kaas.broker.group.streams;

import java.util.Map;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;

/**
 * The streams group protocol's broker settings, named and defaulted as Apache's {@code group.streams.*} configs.
 *
 * @param heartbeatIntervalMs  {@code group.streams.heartbeat.interval.ms} (5 s): told to members in every answer
 * @param sessionTimeoutMs     {@code group.streams.session.timeout.ms} (45 s): a member not heard from for this long
 *                             is removed
 * @param numStandbyReplicas   {@code group.streams.num.standby.replicas} (0): standby tasks per stateful task
 * @param acceptableRecoveryLag {@code group.streams.acceptable.recovery.lag} (10000): the lag under which a member is
 *                             caught up for a stateful task
 * @param taskOffsetIntervalMs {@code group.streams.task.offset.interval.ms} (60 s): how often members report their
 *                             changelog offsets
 */
public record StreamsGroupConfig(
        int heartbeatIntervalMs,
        int sessionTimeoutMs,
        int numStandbyReplicas,
        long acceptableRecoveryLag,
        int taskOffsetIntervalMs) {
    public StreamsGroupConfig {
        if (heartbeatIntervalMs < 1 || sessionTimeoutMs <= heartbeatIntervalMs) {
            throw new IllegalArgumentException("group.streams.heartbeat.interval.ms (" + heartbeatIntervalMs
                    + ") must be positive and below group.streams.session.timeout.ms (" + sessionTimeoutMs + ")");
        }
        if (numStandbyReplicas < 0) {
            throw new IllegalArgumentException(
                    "group.streams.num.standby.replicas must not be negative, got " + numStandbyReplicas);
        }
    }

    /** Apache's defaults. */
    public static StreamsGroupConfig defaults() {
        return new StreamsGroupConfig(5_000, 45_000, 0, 10_000, 60_000);
    }

    public StreamsGroupConfig withTimeouts(int heartbeatIntervalMs, int sessionTimeoutMs) {
        return new StreamsGroupConfig(
                heartbeatIntervalMs, sessionTimeoutMs, numStandbyReplicas, acceptableRecoveryLag, taskOffsetIntervalMs);
    }

    public StreamsGroupConfig withStandbyReplicas(int n) {
        return new StreamsGroupConfig(
                heartbeatIntervalMs, sessionTimeoutMs, n, acceptableRecoveryLag, taskOffsetIntervalMs);
    }

    /** The assignment configs the task assignor is given, as Apache's {@code streamsGroupAssignmentConfigs}. */
    Map<String, String> assignmentConfigs() {
        return Map.of(AssignmentConfigsImpl.NUM_STANDBY_REPLICAS_CONFIG, String.valueOf(numStandbyReplicas));
    }
}
