package io.kaas.broker.group;

import io.kaas.storage.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One KIP-848 consumer group: members, the group epoch, the target assignment and each member's
 * reconciliation toward it. There is no join/sync barrier: every heartbeat moves its member one step.
 *
 * <ul>
 *   <li>The group epoch is bumped when a member joins or leaves, a subscription or the requested
 *       assignor changes, or a subscribed topic appears or changes its partition count; the target
 *       assignment is then recomputed at once (so the assignment epoch always equals the group epoch).</li>
 *   <li>A member gives up partitions first (it keeps its epoch until a heartbeat reports them gone),
 *       and is given a partition only once no other member owns it, or still has it pending
 *       revocation; it reaches the target epoch when nothing is left to revoke.</li>
 * </ul>
 *
 * Every method runs under this object's monitor; session timers run on {@code kaas-timer} and re-enter
 * through it.
 */
final class ConsumerGroup {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);
    /** KIP-848: the epoch a member sends to leave, and the one a static member sends to leave for now. */
    static final int LEAVE_EPOCH = -1;

    static final int STATIC_LEAVE_EPOCH = -2;

    final String groupId;
    /** The group's settings now (its group configs over the broker's); read where used, so changes apply at once. */
    private final Supplier<ConsumerGroupConfig> config;

    private final ConsumerMemberTimers timers;
    private final MemberReconciliation reconciliation;
    private final Supplier<Map<String, TopicInfo>> topics;
    final Map<String, ConsumerGroupMember> members = new LinkedHashMap<>();
    int groupEpoch;
    private Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();
    private String assignorName;
    /** The subscribed topics' ids and partition counts at the last target computation. */
    private Map<String, String> subscribedMetadata = Map.of();

    private boolean dead;

    ConsumerGroup(
            String groupId,
            ScheduledExecutorService timer,
            ConsumerGroupConfig broker,
            Supplier<ConsumerGroupConfig> config,
            Supplier<Map<String, TopicInfo>> topics) {
        this.groupId = groupId;
        this.config = config;
        this.timers = new ConsumerMemberTimers(timer, config, this::sessionExpired, this::revocationTimedOut);
        this.reconciliation = new MemberReconciliation(timers);
        this.topics = topics;
        this.assignorName = broker.assignors().get(0);
    }

    synchronized ConsumerGroupHeartbeatResponseData heartbeat(
            ConsumerGroupHeartbeatRequestData req, String clientId, String host) {
        if (dead) {
            return error(Errors.COORDINATOR_NOT_AVAILABLE, null);
        }
        int epoch = req.memberEpoch();
        if (epoch == LEAVE_EPOCH || epoch == STATIC_LEAVE_EPOCH) {
            return leave(req);
        }
        ConsumerGroupMember m = members.get(req.memberId());
        boolean bump = false;
        if (epoch == 0) {
            ConsumerGroupMember previous = req.instanceId() == null ? null : staticMember(req.instanceId());
            if (previous != null && previous != m) {
                if (previous.memberEpoch != STATIC_LEAVE_EPOCH) {
                    return error(
                            Errors.UNRELEASED_INSTANCE_ID,
                            "Static member " + req.instanceId() + " is still in the group");
                }
                m = replaceStatic(previous, req.memberId());
            } else if (m == null) {
                m = new ConsumerGroupMember(req.memberId());
                members.put(m.memberId, m);
                bump = true;
                LOG.info("consumer group {}: member {} joined", groupId, m.memberId);
            } else {
                // A fenced or restarted member rejoins with its id: it owns nothing now.
                m.assigned = Map.of();
                m.pendingRevocation = Map.of();
                m.state = ConsumerGroupMember.State.STABLE;
                m.memberEpoch = 0;
            }
        } else {
            if (m == null) {
                return error(
                        Errors.UNKNOWN_MEMBER_ID, "Member " + req.memberId() + " is not a member of group " + groupId);
            }
            if (!MemberReconciliation.epochAccepted(m, epoch, req.topicPartitions())) {
                return error(
                        Errors.FENCED_MEMBER_EPOCH,
                        "The consumer group member has a smaller or larger member epoch (" + epoch
                                + ") than the one known by the group coordinator (" + m.memberEpoch + ")");
            }
        }
        m.clientId = clientId;
        m.clientHost = host;
        if (req.instanceId() != null) {
            m.instanceId = req.instanceId();
        }
        if (req.rackId() != null) {
            m.rackId = req.rackId();
        }
        if (req.rebalanceTimeoutMs() > 0) {
            m.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        }
        if (req.subscribedTopicNames() != null && !req.subscribedTopicNames().equals(m.subscribedTopicNames)) {
            m.subscribedTopicNames = List.copyOf(req.subscribedTopicNames());
            bump = true;
        }
        if (req.serverAssignor() != null && !req.serverAssignor().equals(m.serverAssignor)) {
            m.serverAssignor = req.serverAssignor();
            bump = true;
        }
        Map<String, TopicInfo> now = topics.get();
        bump |= !subscribedMetadata(now).equals(subscribedMetadata);
        if (bump) {
            bumpAndAssign(now);
        }
        Map<Uuid, Set<Integer>> before = m.assigned;
        reconciliation.reconcile(
                m, req.topicPartitions(), groupEpoch, target.getOrDefault(m.memberId, Map.of()), members.values());
        timers.resetSession(m);
        ConsumerGroupHeartbeatResponseData r = new ConsumerGroupHeartbeatResponseData()
                .setMemberId(m.memberId)
                .setMemberEpoch(m.memberEpoch)
                .setHeartbeatIntervalMs(config.get().heartbeatIntervalMs());
        if (epoch == 0 || req.topicPartitions() != null || !before.equals(m.assigned)) {
            r.setAssignment(assignment(m.assigned));
        }
        return r;
    }

    private ConsumerGroupHeartbeatResponseData leave(ConsumerGroupHeartbeatRequestData req) {
        ConsumerGroupMember m = members.get(req.memberId());
        if (m == null) {
            return error(Errors.UNKNOWN_MEMBER_ID, "Member " + req.memberId() + " is not a member of group " + groupId);
        }
        if (req.memberEpoch() == STATIC_LEAVE_EPOCH && m.instanceId != null) {
            // KIP-848: a static member leaving for now keeps its assignment until its session expires,
            // so a restart with the same instance id takes it back without a rebalance.
            LOG.info("consumer group {}: static member {} ({}) left for now", groupId, m.memberId, m.instanceId);
            m.previousMemberEpoch = m.memberEpoch; // the epoch a rejoining instance takes back
            m.memberEpoch = STATIC_LEAVE_EPOCH;
            timers.resetSession(m);
        } else {
            LOG.info("consumer group {}: member {} left", groupId, m.memberId);
            remove(m);
        }
        return new ConsumerGroupHeartbeatResponseData()
                .setMemberId(req.memberId())
                .setMemberEpoch(req.memberEpoch())
                .setHeartbeatIntervalMs(0);
    }

    private ConsumerGroupMember staticMember(String instanceId) {
        for (ConsumerGroupMember m : members.values()) {
            if (instanceId.equals(m.instanceId)) {
                return m;
            }
        }
        return null;
    }

    /** KIP-848: a static member rejoining under a new member id takes over its predecessor's assignment and epoch. */
    private ConsumerGroupMember replaceStatic(ConsumerGroupMember previous, String memberId) {
        ConsumerMemberTimers.cancelAll(previous);
        members.remove(previous.memberId);
        ConsumerGroupMember m = new ConsumerGroupMember(memberId);
        m.instanceId = previous.instanceId;
        m.subscribedTopicNames = previous.subscribedTopicNames;
        m.serverAssignor = previous.serverAssignor;
        m.assigned = previous.assigned;
        m.pendingRevocation = previous.pendingRevocation;
        m.state = previous.state;
        m.memberEpoch = previous.previousMemberEpoch;
        m.previousMemberEpoch = previous.previousMemberEpoch;
        members.put(memberId, m);
        Map<Uuid, Set<Integer>> t = target.remove(previous.memberId);
        if (t != null) {
            target.put(memberId, t);
        }
        LOG.info("consumer group {}: static member {} rejoined as {}", groupId, m.instanceId, memberId);
        return m;
    }

    private void bumpAndAssign(Map<String, TopicInfo> now) {
        groupEpoch++;
        subscribedMetadata = subscribedMetadata(now);
        assignorName = preferredAssignor();
        target = TargetAssignment.compute(ServerAssignors.byName(assignorName), members.values(), now, target);
        LOG.info(
                "consumer group {} epoch {}: {} members, target assignment computed by {}",
                groupId,
                groupEpoch,
                members.size(),
                assignorName);
    }

    /** The assignor most members ask for (Apache's rule), else the broker's first. */
    private String preferredAssignor() {
        Map<String, Integer> votes = new TreeMap<>();
        members.values().forEach(m -> {
            if (m.serverAssignor != null
                    && ServerAssignors.find(m.serverAssignor).isPresent()) {
                votes.merge(m.serverAssignor, 1, Integer::sum);
            }
        });
        return votes.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElse(config.get().assignors().get(0));
    }

    private Map<String, String> subscribedMetadata(Map<String, TopicInfo> now) {
        Map<String, String> out = new TreeMap<>();
        for (ConsumerGroupMember m : members.values()) {
            for (String name : m.subscribedTopicNames) {
                TopicInfo t = now.get(name);
                out.put(name, t == null ? "" : t.topicId() + ":" + t.partitions());
            }
        }
        return out;
    }

    private synchronized void revocationTimedOut(ConsumerGroupMember m) {
        if (members.get(m.memberId) != m || m.state != ConsumerGroupMember.State.UNREVOKED_PARTITIONS) {
            return;
        }
        LOG.info(
                "consumer group {}: member {} did not revoke {} within its rebalance timeout ({} ms); fencing it",
                groupId,
                m.memberId,
                m.pendingRevocation,
                m.rebalanceTimeoutMs);
        remove(m);
    }

    private void remove(ConsumerGroupMember m) {
        ConsumerMemberTimers.cancelAll(m);
        members.remove(m.memberId);
        target.remove(m.memberId);
        bumpAndAssign(topics.get());
    }

    private synchronized void sessionExpired(ConsumerGroupMember m) {
        if (members.get(m.memberId) != m) {
            return;
        }
        LOG.info(
                "consumer group {}: member {} session expired after {} ms",
                groupId,
                m.memberId,
                config.get().sessionTimeoutMs());
        remove(m);
    }

    /**
     * OffsetCommit from a member of this group: its epoch must be its current one (STALE_MEMBER_EPOCH
     * otherwise, KIP-848). A negative epoch (admin client, manual assignment) commits only while the group
     * is empty, as Apache's ConsumerGroup.validateOffsetCommit.
     */
    synchronized Errors validateCommit(String memberId, int memberEpoch) {
        if (dead) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (memberEpoch < 0 && members.isEmpty()) {
            return Errors.NONE;
        }
        ConsumerGroupMember m = members.get(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    /** OffsetFetch v9+ naming a member: as OffsetCommit, but any fetch without a member id is allowed. */
    synchronized Errors validateFetch(String memberId, int memberEpoch) {
        if (memberId == null || memberId.isEmpty() || memberEpoch < 0) {
            return Errors.NONE;
        }
        ConsumerGroupMember m = members.get(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    /** Apache's ConsumerGroupState names: Empty, Reconciling (some member not yet at its target), Stable. */
    synchronized String stateName() {
        if (members.isEmpty()) {
            return "Empty";
        }
        for (ConsumerGroupMember m : members.values()) {
            if (m.memberEpoch != groupEpoch || m.state != ConsumerGroupMember.State.STABLE) {
                return "Reconciling";
            }
        }
        return "Stable";
    }

    synchronized boolean isEmpty() {
        return members.isEmpty();
    }

    synchronized String assignorName() {
        return assignorName;
    }

    synchronized Map<Uuid, Set<Integer>> targetOf(String memberId) {
        return target.getOrDefault(memberId, Map.of());
    }

    /** The topics members subscribe to (for OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC). */
    synchronized Set<String> subscribedTopics() {
        Set<String> out = new TreeSet<>();
        members.values().forEach(m -> out.addAll(m.subscribedTopicNames));
        return out;
    }

    /** The group is deleted or taken over by a classic group; members still heartbeating are told to rediscover. */
    synchronized void markDead() {
        members.values().forEach(ConsumerMemberTimers::cancelAll);
        members.clear();
        dead = true;
    }

    synchronized boolean isDead() {
        return dead;
    }

    /** Broker shutdown: no session timer outlives the broker. */
    synchronized void shutdown() {
        members.values().forEach(ConsumerMemberTimers::cancelAll);
    }

    static ConsumerGroupHeartbeatResponseData.Assignment assignment(Map<Uuid, Set<Integer>> partitions) {
        List<ConsumerGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
        partitions.forEach((id, ps) -> tps.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(id)
                .setPartitions(new ArrayList<>(ps))));
        return new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps);
    }

    static ConsumerGroupHeartbeatResponseData error(Errors e, String message) {
        return new ConsumerGroupHeartbeatResponseData()
                .setErrorCode(e.code())
                .setErrorMessage(Objects.requireNonNullElse(message, e.message()))
                .setMemberEpoch(-1)
                .setHeartbeatIntervalMs(0);
    }
}
