package io.kaas.broker.group;

import io.kaas.storage.TopicInfo;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * Computes a consumer group's target assignment (KIP-848) by running one of Apache's server-side
 * assignors over the members' subscriptions and the topics as they exist now. The previous target is
 * handed in as the members' current assignment, so the assignors stay sticky.
 */
public final class TargetAssignment {
    private TargetAssignment() {}

    /**
     * The same for members known only by their subscribed topic names (share groups, whose assignor,
     * Apache's {@code SimpleAssignor}, gives a partition to several members).
     */
    public static Map<String, Map<Uuid, Set<Integer>>> forSubscriptions(
            PartitionAssignor assignor,
            Map<String, Set<String>> subscribedTopicNames,
            Map<String, TopicInfo> topicsByName,
            Map<String, Map<Uuid, Set<Integer>>> previous) {
        Map<Uuid, Integer> partitionCounts = new HashMap<>();
        Map<String, MemberSubscription> subscriptions = new HashMap<>();
        subscribedTopicNames.forEach((memberId, names) -> subscriptions.put(
                memberId,
                new Subscription(Optional.empty(), Optional.empty(), topicIds(names, topicsByName, partitionCounts))));
        return run(assignor, subscriptions, partitionCounts, previous);
    }

    private static Set<Uuid> topicIds(
            Collection<String> names, Map<String, TopicInfo> topicsByName, Map<Uuid, Integer> partitionCounts) {
        Set<Uuid> ids = new HashSet<>();
        for (String name : names) {
            TopicInfo t = topicsByName.get(name);
            if (t != null) {
                Uuid id = ConsumerGroupMember.uuid(t.topicId());
                ids.add(id);
                partitionCounts.put(id, t.partitions());
            }
        }
        return ids;
    }

    /** Member id → topic id → partitions. */
    static Map<String, Map<Uuid, Set<Integer>>> compute(
            ConsumerGroupPartitionAssignor assignor,
            Collection<ConsumerGroupMember> members,
            Map<String, TopicInfo> topicsByName,
            Map<String, Map<Uuid, Set<Integer>>> previous) {
        Map<Uuid, Integer> partitionCounts = new HashMap<>();
        Map<String, MemberSubscription> subscriptions = new HashMap<>();
        for (ConsumerGroupMember m : members) {
            subscriptions.put(
                    m.memberId,
                    new Subscription(
                            Optional.ofNullable(m.rackId),
                            Optional.ofNullable(m.instanceId),
                            topicIds(m.subscribedTopicNames, topicsByName, partitionCounts)));
        }
        return run(assignor, subscriptions, partitionCounts, previous);
    }

    private static Map<String, Map<Uuid, Set<Integer>>> run(
            PartitionAssignor assignor,
            Map<String, MemberSubscription> subscriptions,
            Map<Uuid, Integer> partitionCounts,
            Map<String, Map<Uuid, Set<Integer>>> previous) {
        boolean homogeneous = subscriptions.values().stream()
                        .map(MemberSubscription::subscribedTopicIds)
                        .distinct()
                        .count()
                <= 1;
        Set<TopicPartitionId> assigned = new HashSet<>();
        previous.values()
                .forEach(a -> a.forEach((id, ps) -> ps.forEach(p -> assigned.add(new TopicPartitionId(id, p)))));
        GroupSpec spec = new GroupSpec() {
            @Override
            public Collection<String> memberIds() {
                return subscriptions.keySet();
            }

            @Override
            public SubscriptionType subscriptionType() {
                return homogeneous ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
            }

            @Override
            public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
                return assigned.contains(new TopicPartitionId(topicId, partitionId));
            }

            @Override
            public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
                return true;
            }

            @Override
            public MemberSubscription memberSubscription(String memberId) {
                return subscriptions.get(memberId);
            }

            @Override
            public MemberAssignment memberAssignment(String memberId) {
                // Apache's assignors insist on an unmodifiable view (AssignorHelpers.isImmutableMap).
                Map<Uuid, Set<Integer>> mine = Collections.unmodifiableMap(previous.getOrDefault(memberId, Map.of()));
                return () -> mine;
            }
        };
        SubscribedTopicDescriber topics = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return partitionCounts.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of();
            }
        };
        GroupAssignment result = assignor.assign(spec, topics);
        Map<String, Map<Uuid, Set<Integer>>> out = new HashMap<>();
        for (String id : subscriptions.keySet()) {
            MemberAssignment a = result.members().get(id);
            out.put(id, a == null ? Map.of() : ConsumerGroupMember.copy(a.partitions()));
        }
        return out;
    }

    private record TopicPartitionId(Uuid topicId, int partition) {}

    private record Subscription(Optional<String> rackId, Optional<String> instanceId, Set<Uuid> subscribedTopicIds)
            implements MemberSubscription {}
}
