package io.kaas.broker.group;

import io.kaas.storage.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The KIP-848 consumer groups this broker coordinates, by id. {@link GroupCoordinator} decides which
 * kind a group id is; this class checks heartbeat requests as Apache does and describes groups.
 */
final class ConsumerGroups {
    /** ConsumerGroupHeartbeat v1+: the client generates its member id (KIP-1082). */
    private static final short FIRST_CLIENT_MEMBER_ID_VERSION = 1;
    /** ConsumerGroupDescribe v1+ reports each member's type; 1 = a consumer-protocol member. */
    private static final byte CONSUMER_MEMBER_TYPE = 1;

    private final ScheduledExecutorService timer;
    /** The broker's settings (assignors are broker-wide). */
    private final ConsumerGroupConfig config;
    /** A group's settings now: the broker's, with the group's configs over them. */
    private final Function<String, ConsumerGroupConfig> configOf;

    private final Supplier<Map<String, TopicInfo>> topics;
    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();

    ConsumerGroups(
            ScheduledExecutorService timer,
            ConsumerGroupConfig config,
            Function<String, ConsumerGroupConfig> configOf,
            Supplier<Map<String, TopicInfo>> topics) {
        this.timer = timer;
        this.config = config;
        this.configOf = configOf;
        this.topics = topics;
    }

    Optional<ConsumerGroup> get(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    ConsumerGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(
                groupId, id -> new ConsumerGroup(id, timer, config, () -> configOf.apply(id), topics));
    }

    void remove(ConsumerGroup g) {
        g.markDead();
        groups.remove(g.groupId, g);
    }

    Map<String, ConsumerGroup> all() {
        return groups;
    }

    /** Apache's request checks (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid); null when valid. */
    Optional<ConsumerGroupHeartbeatResponseData> invalid(ConsumerGroupHeartbeatRequestData req, short version) {
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return invalidRequest("GroupId can't be empty.");
        }
        if (version >= FIRST_CLIENT_MEMBER_ID_VERSION && req.memberId().isEmpty()) {
            return invalidRequest("MemberId can't be empty.");
        }
        int epoch = req.memberEpoch();
        if (epoch == 0) {
            if (req.rebalanceTimeoutMs() == -1) {
                return invalidRequest("RebalanceTimeoutMs must be provided in first request.");
            }
            if (req.topicPartitions() == null || !req.topicPartitions().isEmpty()) {
                return invalidRequest("TopicPartitions must be empty when (re-)joining.");
            }
            if (req.subscribedTopicNames() == null && req.subscribedTopicRegex() == null) {
                return invalidRequest("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
            }
        } else if (epoch == ConsumerGroup.STATIC_LEAVE_EPOCH) {
            if (req.instanceId() == null) {
                return invalidRequest("InstanceId can't be null.");
            }
        } else if (epoch < ConsumerGroup.STATIC_LEAVE_EPOCH) {
            return invalidRequest("MemberEpoch is invalid.");
        }
        if (req.subscribedTopicRegex() != null && !req.subscribedTopicRegex().isEmpty()) {
            // Regex subscriptions (KIP-848's RE2/J patterns) are not resolved by this broker.
            return Optional.of(ConsumerGroup.error(
                    Errors.INVALID_REQUEST, "kaas does not support SubscribedTopicRegex; subscribe to topic names"));
        }
        if (req.serverAssignor() != null && !config.assignors().contains(req.serverAssignor())) {
            return Optional.of(ConsumerGroup.error(
                    Errors.UNSUPPORTED_ASSIGNOR,
                    "ServerAssignor " + req.serverAssignor() + " is not supported. " + "Supported assignors: "
                            + String.join(", ", config.assignors()) + "."));
        }
        return Optional.empty();
    }

    private static Optional<ConsumerGroupHeartbeatResponseData> invalidRequest(String message) {
        return Optional.of(ConsumerGroup.error(Errors.INVALID_REQUEST, message));
    }

    /** ConsumerGroupDescribe for one group known to be a consumer group. */
    ConsumerGroupDescribeResponseData.DescribedGroup describe(ConsumerGroup g, short version) {
        Map<Uuid, String> names = new HashMap<>();
        topics.get().values().forEach(t -> names.put(ConsumerGroupMember.uuid(t.topicId()), t.name()));
        synchronized (g) {
            ConsumerGroupDescribeResponseData.DescribedGroup d = new ConsumerGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(g.groupId)
                    .setGroupState(g.stateName())
                    .setGroupEpoch(g.groupEpoch)
                    .setAssignmentEpoch(g.groupEpoch)
                    .setAssignorName(g.assignorName());
            for (ConsumerGroupMember m : g.members.values()) {
                ConsumerGroupDescribeResponseData.Member dm = new ConsumerGroupDescribeResponseData.Member()
                        .setMemberId(m.memberId)
                        .setInstanceId(m.instanceId)
                        .setRackId(m.rackId)
                        .setMemberEpoch(m.memberEpoch)
                        .setClientId(m.clientId == null ? "" : m.clientId)
                        .setClientHost(m.clientHost == null ? "" : m.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopicNames))
                        .setAssignment(describeAssignment(m.assigned, names))
                        .setTargetAssignment(describeAssignment(g.targetOf(m.memberId), names));
                if (version >= 1) {
                    dm.setMemberType(CONSUMER_MEMBER_TYPE);
                }
                d.members().add(dm);
            }
            return d;
        }
    }

    private static ConsumerGroupDescribeResponseData.Assignment describeAssignment(
            Map<Uuid, Set<Integer>> a, Map<Uuid, String> names) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> tps = new ArrayList<>();
        a.forEach((id, ps) -> tps.add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                .setTopicId(id)
                .setTopicName(names.getOrDefault(id, ""))
                .setPartitions(new ArrayList<>(ps))));
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(tps);
    }

    void shutdown() {
        groups.values().forEach(ConsumerGroup::shutdown);
    }
}
