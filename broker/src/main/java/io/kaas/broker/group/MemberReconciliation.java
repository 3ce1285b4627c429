package io.kaas.broker.group;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;

/**
 * One step of a KIP-848 member toward its target assignment, as Apache's {@code CurrentAssignmentBuilder}: a member
 * gives up partitions first (it keeps its epoch until a heartbeat reports them gone, within its rebalance timeout), and
 * is given a partition only once no other member owns it or still has it pending revocation; it reaches the group's
 * epoch when nothing is left to revoke. Also the rule for which member epochs a heartbeat may carry. Called under the
 * member's group's monitor.
 */
final class MemberReconciliation {
    private final ConsumerMemberTimers timers;

    MemberReconciliation(ConsumerMemberTimers timers) {
        this.timers = timers;
    }

    /** Apache's rule: an older epoch is accepted only as the previous one, from a member owning no more than we gave it. */
    static boolean epochAccepted(
            ConsumerGroupMember m, int epoch, List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        if (epoch == m.memberEpoch) {
            return true;
        }
        if (epoch > m.memberEpoch || epoch != m.previousMemberEpoch || owned == null) {
            return false;
        }
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : owned) {
            for (int p : tp.partitions()) {
                if (!ConsumerGroupMember.contains(m.assigned, tp.topicId(), p)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * One step for {@code m}, whose target is {@code targetOfM} at {@code groupEpoch}; {@code owned} is what its
     * heartbeat reported, if anything; {@code members} the whole group (who still owns what).
     */
    void reconcile(
            ConsumerGroupMember m,
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned,
            int groupEpoch,
            Map<Uuid, Set<Integer>> targetOfM,
            Collection<ConsumerGroupMember> members) {
        switch (m.state) {
            case STABLE -> {
                if (m.memberEpoch != groupEpoch) {
                    computeNext(m, groupEpoch, targetOfM, members);
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (owned != null && !ownsAny(owned, m.pendingRevocation)) {
                    m.pendingRevocation = Map.of();
                    computeNext(m, groupEpoch, targetOfM, members);
                }
            }
            case UNRELEASED_PARTITIONS -> computeNext(m, groupEpoch, targetOfM, members);
        }
    }

    private void computeNext(
            ConsumerGroupMember m,
            int groupEpoch,
            Map<Uuid, Set<Integer>> targetOfM,
            Collection<ConsumerGroupMember> members) {
        Map<Uuid, Set<Integer>> kept = new TreeMap<>();
        Map<Uuid, Set<Integer>> revoke = new TreeMap<>();
        m.assigned.forEach((id, ps) -> ps.forEach(
                p -> ConsumerGroupMember.add(ConsumerGroupMember.contains(targetOfM, id, p) ? kept : revoke, id, p)));
        if (!revoke.isEmpty()) {
            m.assigned = kept;
            m.pendingRevocation = revoke;
            m.state = ConsumerGroupMember.State.UNREVOKED_PARTITIONS;
            timers.startRevocationDeadline(m);
            return;
        }
        ConsumerMemberTimers.cancelRevocationDeadline(m);
        boolean unreleased = false;
        Map<Uuid, Set<Integer>> next = ConsumerGroupMember.copy(kept);
        for (Map.Entry<Uuid, Set<Integer>> e : targetOfM.entrySet()) {
            for (int p : e.getValue()) {
                if (ConsumerGroupMember.contains(kept, e.getKey(), p)) {
                    continue;
                }
                if (ownedByAnother(m, e.getKey(), p, members)) {
                    unreleased = true;
                } else {
                    ConsumerGroupMember.add(next, e.getKey(), p);
                }
            }
        }
        m.assigned = next;
        m.pendingRevocation = Map.of();
        m.state = unreleased ? ConsumerGroupMember.State.UNRELEASED_PARTITIONS : ConsumerGroupMember.State.STABLE;
        if (m.memberEpoch != groupEpoch) {
            m.previousMemberEpoch = m.memberEpoch;
            m.memberEpoch = groupEpoch;
        }
    }

    private static boolean ownedByAnother(
            ConsumerGroupMember self, Uuid topicId, int partition, Collection<ConsumerGroupMember> members) {
        for (ConsumerGroupMember other : members) {
            if (other != self && other.owns(topicId, partition)) {
                return true;
            }
        }
        return false;
    }

    private static boolean ownsAny(
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned, Map<Uuid, Set<Integer>> partitions) {
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : owned) {
            for (int p : tp.partitions()) {
                if (ConsumerGroupMember.contains(partitions, tp.topicId(), p)) {
                    return true;
                }
            }
        }
        return false;
    }
}
