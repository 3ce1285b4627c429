package io.kaas.broker.group;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.Uuid;

/** One member of a KIP-848 consumer group. Mutated only under its group's monitor. */
final class ConsumerGroupMember {
    /** Where the member stands in reconciling toward its target assignment (Apache's MemberState). */
    enum State {
        /** Has its target assignment at the current target epoch. */
        STABLE,
        /** Must first give up partitions it owns (pendingRevocation); keeps its epoch until it reports them released. */
        UNREVOKED_PARTITIONS,
        /** At the target epoch, but some target partitions are still owned by other members. */
        UNRELEASED_PARTITIONS
    }

    final String memberId;
    String instanceId;
    String rackId;
    String clientId;
    String clientHost;
    int rebalanceTimeoutMs;
    List<String> subscribedTopicNames = List.of();
    String serverAssignor;
    int memberEpoch;
    int previousMemberEpoch;
    State state = State.STABLE;
    /** What the member owns by our account: topic id → partitions. */
    Map<Uuid, Set<Integer>> assigned = Map.of();
    /** Partitions the member must give up before it is given more (still counted as its own meanwhile). */
    Map<Uuid, Set<Integer>> pendingRevocation = Map.of();
    /** Fires when the member has not heartbeated within the session timeout. */
    ScheduledFuture<?> sessionExpiry;
    /** Fires when the member has not revoked its pendingRevocation within its rebalance timeout. */
    ScheduledFuture<?> revocationDeadline;

    ConsumerGroupMember(String memberId) {
        this.memberId = memberId;
    }

    boolean owns(Uuid topicId, int partition) {
        return contains(assigned, topicId, partition) || contains(pendingRevocation, topicId, partition);
    }

    static boolean contains(Map<Uuid, Set<Integer>> a, Uuid topicId, int partition) {
        Set<Integer> ps = a.get(topicId);
        return ps != null && ps.contains(partition);
    }

    static Map<Uuid, Set<Integer>> copy(Map<Uuid, Set<Integer>> a) {
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        a.forEach((id, ps) -> {
            if (!ps.isEmpty()) {
                out.put(id, new TreeSet<>(ps));
            }
        });
        return out;
    }

    static void add(Map<Uuid, Set<Integer>> a, Uuid topicId, int partition) {
        a.computeIfAbsent(topicId, k -> new TreeSet<>()).add(partition);
    }

    static Uuid uuid(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
