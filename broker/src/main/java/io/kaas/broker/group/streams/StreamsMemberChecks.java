package io.kaas.broker.group.streams;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.group.streams.StreamsGroupMember;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredSubtopology;

/**
 * Apache's checks of a StreamsGroupHeartbeat ({@code GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid},
 * {@code throwIfInvalidTopology}, and {@code GroupMetadataManager}'s member-epoch and owned-task checks), each an
 * answer when it fails.
 */
final class StreamsMemberChecks {
    static final int LEAVE_EPOCH = -1;
    static final int STATIC_LEAVE_EPOCH = -2;

    private StreamsMemberChecks() {}

    /** The request's own consistency; empty when valid. */
    static Optional<StreamsHeartbeat> invalid(StreamsGroupHeartbeatRequestData req) {
        if (req.memberId() == null || req.memberId().isEmpty()) {
            return invalidRequest("MemberId can't be empty.");
        }
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return invalidRequest("GroupId can't be empty.");
        }
        if (req.instanceId() != null && req.instanceId().isEmpty()) {
            return invalidRequest("InstanceId can't be empty.");
        }
        if (req.rackId() != null && req.rackId().isEmpty()) {
            return invalidRequest("RackId can't be empty.");
        }
        int epoch = req.memberEpoch();
        if (epoch == 0) {
            if (req.rebalanceTimeoutMs() == -1) {
                return invalidRequest("RebalanceTimeoutMs must be provided in first request.");
            }
            if (notEmpty(req.activeTasks())) {
                return invalidRequest("ActiveTasks must be empty when (re-)joining.");
            }
            if (notEmpty(req.standbyTasks())) {
                return invalidRequest("StandbyTasks must be empty when (re-)joining.");
            }
            if (notEmpty(req.warmupTasks())) {
                return invalidRequest("WarmupTasks must be empty when (re-)joining.");
            }
            if (req.topology() == null) {
                return invalidRequest("Topology must be non-null when (re-)joining.");
            }
            for (StreamsGroupHeartbeatRequestData.Subtopology s : req.topology().subtopologies()) {
                if (!s.sourceTopicRegex().isEmpty()) {
                    return invalidRequest("Regular expressions for source topics are not supported yet.");
                }
                for (StreamsGroupHeartbeatRequestData.TopicInfo t : s.stateChangelogTopics()) {
                    if (t.partitions() != 0) {
                        return Optional.of(StreamsHeartbeat.error(
                                Errors.STREAMS_INVALID_TOPOLOGY,
                                String.format(
                                        "Changelog topic %s must have an undefined partition count, but it is set to %d.",
                                        t.name(), t.partitions())));
                    }
                }
            }
        } else if (epoch == STATIC_LEAVE_EPOCH) {
            if (req.instanceId() == null) {
                return invalidRequest("InstanceId can't be null.");
            }
        } else if (epoch < STATIC_LEAVE_EPOCH) {
            return invalidRequest(String.format("MemberEpoch is %d, but must be greater than or equal to -2.", epoch));
        }
        if (req.activeTasks() != null || req.standbyTasks() != null || req.warmupTasks() != null) {
            if (req.activeTasks() == null || req.standbyTasks() == null || req.warmupTasks() == null) {
                return invalidRequest("If one task-type is non-null, all must be non-null.");
            }
        }
        if (epoch != 0 && req.topology() != null) {
            return invalidRequest("Topology can only be provided when (re-)joining.");
        }
        if (req.instanceId() != null) {
            // Static membership (KIP-345) of streams members is not implemented here yet.
            return invalidRequest("kaas does not support static membership (group.instance.id) in streams groups.");
        }
        return Optional.empty();
    }

    /**
     * Apache's member-epoch rule: a larger epoch is fenced; a smaller one is accepted only as the previous epoch from a
     * member owning no more than it was given (its answer with the new epoch may have been lost).
     */
    static Optional<StreamsHeartbeat> epochRefused(StreamsGroupMember m, StreamsGroupHeartbeatRequestData req) {
        int received = req.memberEpoch();
        if (received > m.memberEpoch()) {
            return Optional.of(StreamsHeartbeat.error(
                    Errors.FENCED_MEMBER_EPOCH,
                    "The streams group member has a greater member epoch (" + received
                            + ") than the one known by the group coordinator (" + m.memberEpoch()
                            + "). The member must abandon all its tasks and rejoin."));
        }
        Map<String, Set<Integer>> active = new java.util.HashMap<>();
        m.assignedTasks().activeTasksWithEpochs().forEach((s, ps) -> active.put(s, ps.keySet()));
        if (received < m.memberEpoch()
                && (received != m.previousMemberEpoch()
                        || !contained(req.activeTasks(), active)
                        || !contained(req.standbyTasks(), m.assignedTasks().standbyTasks())
                        || !contained(req.warmupTasks(), m.assignedTasks().warmupTasks()))) {
            return Optional.of(StreamsHeartbeat.error(
                    Errors.FENCED_MEMBER_EPOCH,
                    "The streams group member has a smaller member epoch (" + received
                            + ") than the one known by the group coordinator (" + m.memberEpoch()
                            + "). The member must abandon all its tasks and rejoin."));
        }
        return Optional.empty();
    }

    private static boolean contained(
            List<StreamsGroupHeartbeatRequestData.TaskIds> owned, Map<String, Set<Integer>> assigned) {
        if (owned == null) {
            return true;
        }
        for (StreamsGroupHeartbeatRequestData.TaskIds t : owned) {
            Set<Integer> a = assigned.get(t.subtopologyId());
            if (a == null || !a.containsAll(t.partitions())) {
                return false;
            }
        }
        return true;
    }

    /** Apache's {@code throwIfRequestContainsInvalidTasks}: owned tasks must exist in the configured topology. */
    static Optional<StreamsHeartbeat> invalidTasks(
            SortedMap<String, ConfiguredSubtopology> subtopologies, StreamsGroupHeartbeatRequestData req) {
        for (List<StreamsGroupHeartbeatRequestData.TaskIds> owned :
                java.util.Arrays.asList(req.activeTasks(), req.standbyTasks(), req.warmupTasks())) {
            if (owned == null) {
                continue;
            }
            for (StreamsGroupHeartbeatRequestData.TaskIds t : owned) {
                ConfiguredSubtopology s = subtopologies.get(t.subtopologyId());
                if (s == null) {
                    return Optional.of(StreamsHeartbeat.error(
                            Errors.STREAMS_INVALID_TOPOLOGY_EPOCH,
                            "Subtopology " + t.subtopologyId() + " does not exist in the topology."));
                }
                for (int p : t.partitions()) {
                    if (p < 0 || p >= s.numberOfTasks()) {
                        return Optional.of(StreamsHeartbeat.error(
                                Errors.STREAMS_INVALID_TOPOLOGY_EPOCH,
                                "Task " + p + " of subtopology " + t.subtopologyId() + " does not exist."));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static boolean notEmpty(List<?> l) {
        return l != null && !l.isEmpty();
    }

    private static Optional<StreamsHeartbeat> invalidRequest(String message) {
        return Optional.of(StreamsHeartbeat.error(Errors.INVALID_REQUEST, message));
    }
}
