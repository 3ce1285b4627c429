package io.kaas.broker.group.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.coordinator.group.streams.StreamsGroup;
import org.apache.kafka.coordinator.group.streams.StreamsGroupMember;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredTopology;
import org.apache.kafka.coordinator.group.streams.topics.EndpointToPartitionsManager;

/**
 * The StreamsGroupHeartbeat response for a member after its heartbeat was applied, as Apache's
 * {@code GroupMetadataManager.streamsGroupHeartbeat} renders it: the tasks only when they changed (or on a join),
 * the endpoint-to-partitions map only when the member's endpoint epoch is behind, and the statuses (stale
 * topology, missing or misconfigured topics, a requested application shutdown). Called under the group's monitor.
 */
final class StreamsHeartbeatAnswer {
    private StreamsHeartbeatAnswer() {}

    static StreamsGroupHeartbeatResponseData of(
            StreamsGroup group,
            StreamsGroupConfig config,
            StreamsGroupHeartbeatRequestData req,
            short version,
            StreamsGroupMember before,
            StreamsGroupMember member,
            ConfiguredTopology configured,
            TopicImage image,
            List<StreamsGroupHeartbeatResponseData.Status> status) {
        StreamsGroupHeartbeatResponseData r = new StreamsGroupHeartbeatResponseData()
                .setMemberId(member.memberId())
                .setMemberEpoch(member.memberEpoch())
                .setHeartbeatIntervalMs(config.heartbeatIntervalMs())
                .setTaskOffsetIntervalMs(config.taskOffsetIntervalMs());
        if (version == 0) {
            r.setAcceptableRecoveryLagLegacy((int) Math.min(Integer.MAX_VALUE, config.acceptableRecoveryLag()));
        } else {
            r.setAcceptableRecoveryLag(config.acceptableRecoveryLag());
        }
        if (req.memberEpoch() == 0 || StreamsGroupMember.hasAssignedTasksChanged(before, member)) {
            r.setActiveTasks(taskIds(activeOf(member)));
            r.setStandbyTasks(taskIds(member.assignedTasks().standbyTasks()));
            r.setWarmupTasks(taskIds(member.assignedTasks().warmupTasks()));
            if (member.userEndpoint().isPresent()) {
                group.setEndpointInformationEpoch(group.endpointInformationEpoch() + 1);
            }
        }
        if (group.endpointInformationEpoch() != req.endpointInformationEpoch()) {
            List<StreamsGroupHeartbeatResponseData.EndpointToPartitions> endpoints = new ArrayList<>();
            for (StreamsGroupMember m : group.members().values()) {
                EndpointToPartitionsManager.maybeEndpointToPartitions(m, group, image)
                        .ifPresent(endpoints::add);
            }
            r.setPartitionsByUserEndpoint(endpoints);
        }
        r.setEndpointInformationEpoch(group.endpointInformationEpoch());
        configured
                .topicConfigurationException()
                .ifPresent(e -> status.add(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode(e.status().code())
                        .setStatusDetail(e.getMessage())));
        group.getShutdownRequestMemberId()
                .ifPresent(requester -> status.add(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode(StreamsGroupHeartbeatResponse.Status.SHUTDOWN_APPLICATION.code())
                        .setStatusDetail(String.format(
                                "Streams group member %s encountered a fatal error and requested a shutdown for the entire application.",
                                requester))));
        if (!status.isEmpty()) {
            r.setStatus(status);
        }
        return r;
    }

    private static Map<String, Set<Integer>> activeOf(StreamsGroupMember m) {
        Map<String, Set<Integer>> out = new HashMap<>();
        m.assignedTasks().activeTasksWithEpochs().forEach((s, ps) -> out.put(s, ps.keySet()));
        return out;
    }

    private static List<StreamsGroupHeartbeatResponseData.TaskIds> taskIds(Map<String, Set<Integer>> tasks) {
        return tasks.entrySet().stream()
                .map(e -> new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId(e.getKey())
                        .setPartitions(e.getValue().stream().sorted().toList()))
                .collect(Collectors.toList());
    }
}
