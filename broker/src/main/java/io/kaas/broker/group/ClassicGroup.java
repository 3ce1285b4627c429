package io.kaas.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One classic-protocol group: membership, generations and the join/sync rebalance.
 *
 * <pre>
 * Empty ──join──▶ PreparingRebalance ──all joined / rebalance timeout──▶ CompletingRebalance ──leader's sync──▶ Stable
 *   ▲                    ▲                                                     │                               │
 *   └── last member gone ┴──────────── join, leave, session expiry ────────────┴───────────────────────────────┘
 * </pre>
 *
 * Every method runs under this object's monitor; waiting members hold futures (never threads), completed
 * by whichever call or timer finishes the step. Timers (session expiry, rebalance deadline) run on the
 * broker's {@code kaas-timer} scheduler and re-enter through the monitor.
 */
final class ClassicGroup {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicGroup.class);
    /** JoinGroup v4+ makes a new dynamic member rejoin with the id we hand out (KIP-394). */
    private static final short FIRST_MEMBER_ID_REQUIRED_VERSION = 4;

    private static final short FIRST_SKIP_ASSIGNMENT_VERSION = 9;

    final String groupId;
    private final ClassicGroupTimers timers;
    GroupState state = GroupState.EMPTY;
    int generation;
    String protocolType;
    String protocolName;
    String leaderId;
    final Map<String, Member> members = new LinkedHashMap<>();
    private final StaticMembers staticMembers = new StaticMembers();
    private final Set<String> pendingMemberIds = new HashSet<>();

    ClassicGroup(String groupId, ScheduledExecutorService timer) {
        this.groupId = groupId;
        this.timers = new ClassicGroupTimers(timer, this::sessionExpired, this::rebalanceTimedOut);
    }

    synchronized CompletableFuture<JoinGroupResponseData> join(
            JoinGroupRequestData req, short version, String clientId, String host) {
        String memberId = req.memberId();
        if (state == GroupState.DEAD) {
            return ClassicResponses.joinError(Errors.COORDINATOR_NOT_AVAILABLE, memberId);
        }
        if (req.protocolType().isEmpty() || req.protocols().isEmpty()) {
            return ClassicResponses.joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId);
        }
        if (!ClassicGroupTimers.validSessionTimeout(req.sessionTimeoutMs())) {
            return ClassicResponses.joinError(Errors.INVALID_SESSION_TIMEOUT, memberId);
        }
        Member existing = members.get(memberId);
        if (!members.isEmpty() && !ClassicProtocols.compatible(req, protocolType, members.values(), existing)) {
            return ClassicResponses.joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId);
        }
        String instanceId = req.groupInstanceId();
        Member member;
        if (memberId.isEmpty()) {
            String newId = (instanceId != null ? instanceId : clientId) + "-" + UUID.randomUUID();
            if (instanceId != null) {
                String old = staticMembers.memberOf(instanceId);
                Member previous = old == null ? null : members.get(old);
                if (previous != null && state == GroupState.STABLE) {
                    JoinGroupResponseData kept = rejoinStable(previous, newId, clientId, host, req, version);
                    if (kept != null) {
                        return CompletableFuture.completedFuture(kept);
                    }
                    old = null; // replaced, and the group rebalances for the protocols it brought
                }
                if (old != null) {
                    // A restarted static member takes over its old identity; the old instance is fenced.
                    remove(members.get(old), Errors.FENCED_INSTANCE_ID, false);
                }
            } else if (version >= FIRST_MEMBER_ID_REQUIRED_VERSION) {
                pendingMemberIds.add(newId);
                return ClassicResponses.joinError(Errors.MEMBER_ID_REQUIRED, newId);
            }
            member = add(newId, instanceId, clientId, host);
        } else if (existing == null) {
            if (!pendingMemberIds.remove(memberId)) {
                return ClassicResponses.joinError(Errors.UNKNOWN_MEMBER_ID, memberId);
            }
            member = add(memberId, instanceId, clientId, host);
        } else {
            if (staticMembers.check(memberId, instanceId, true) != Errors.NONE) {
                return ClassicResponses.joinError(Errors.FENCED_INSTANCE_ID, memberId);
            }
            member = existing;
        }
        member.timeoutsOf(req);
        member.protocols = Member.protocolsOf(req);
        if (protocolType == null) {
            protocolType = req.protocolType();
        }
        if (member.pendingJoin != null) {
            member.pendingJoin.complete(ClassicResponses.joinFailed(Errors.REBALANCE_IN_PROGRESS, member.memberId));
        }
        CompletableFuture<JoinGroupResponseData> f = new CompletableFuture<>();
        member.pendingJoin = f;
        // A member waiting in JoinGroup cannot heartbeat; the rebalance deadline bounds it instead.
        ClassicGroupTimers.cancelSession(member);
        if (state == GroupState.PREPARING_REBALANCE) {
            maybeCompleteJoin();
        } else {
            prepareRebalance("member " + member.memberId + " joined");
        }
        return f;
    }

    /**
     * KIP-345 and KIP-814: a restarted static member (leader or follower) takes over its old identity under a new
     * member id, and the old incarnation is fenced. When the group's protocol stays the one selected, there is no
     * rebalance: the member keeps its assignment and the generation, and is answered at once (a leader on JoinGroup
     * v9+ with {@code skip_assignment}; on older versions a leader is named the old member id, so the client acts
     * as a follower and asks SyncGroup for its assignment). Otherwise the group rebalances and null is returned.
     */
    private JoinGroupResponseData rejoinStable(
            Member previous, String newId, String clientId, String host, JoinGroupRequestData req, short version) {
        boolean wasLeader = previous.memberId.equals(leaderId);
        remove(previous, Errors.FENCED_INSTANCE_ID, false);
        Member m = add(newId, previous.groupInstanceId, clientId, host);
        m.protocols = Member.protocolsOf(req);
        m.assignment = previous.assignment;
        m.timeoutsOf(req);
        if (wasLeader) {
            leaderId = newId;
        }
        if (!ClassicProtocols.select(members.get(leaderId), members.values()).equals(protocolName)) {
            return null;
        }
        timers.resetSession(m);
        LOG.info(
                "group {}: static member {} rejoined as {} without a rebalance",
                groupId,
                previous.groupInstanceId,
                newId);
        if (wasLeader && version >= FIRST_SKIP_ASSIGNMENT_VERSION) {
            return ClassicResponses.joined(m, generation, protocolType, protocolName, leaderId, members.values())
                    .setSkipAssignment(true);
        }
        String named = wasLeader ? previous.memberId : leaderId;
        return ClassicResponses.joined(m, generation, protocolType, protocolName, named, List.of());
    }

    private Member add(String memberId, String instanceId, String clientId, String host) {
        Member m = new Member(memberId, instanceId, clientId, host);
        members.put(memberId, m);
        staticMembers.bind(m);
        return m;
    }

    private void prepareRebalance(String reason) {
        LOG.info("group {} rebalancing (generation {}): {}", groupId, generation, reason);
        state = GroupState.PREPARING_REBALANCE;
        for (Member m : members.values()) {
            if (m.pendingSync != null) {
                m.pendingSync.complete(syncResponse(Errors.REBALANCE_IN_PROGRESS, new byte[0]));
                m.pendingSync = null;
            }
        }
        timers.startRebalanceDeadline(members.values().stream()
                .mapToInt(m -> m.rebalanceTimeoutMs)
                .max()
                .orElse(0));
        maybeCompleteJoin();
    }

    private synchronized void rebalanceTimedOut() {
        if (state != GroupState.PREPARING_REBALANCE) {
            return;
        }
        for (Member m : new ArrayList<>(members.values())) {
            if (m.pendingJoin == null) {
                LOG.info(
                        "group {}: member {} did not rejoin within the rebalance timeout; removing it",
                        groupId,
                        m.memberId);
                remove(m, Errors.UNKNOWN_MEMBER_ID, false);
            }
        }
        completeJoin();
    }

    private void maybeCompleteJoin() {
        if (state != GroupState.PREPARING_REBALANCE) {
            return;
        }
        for (Member m : members.values()) {
            if (m.pendingJoin == null) {
                return;
            }
        }
        completeJoin();
    }

    private void completeJoin() {
        timers.cancelRebalanceDeadline();
        generation++;
        if (members.isEmpty()) {
            state = GroupState.EMPTY;
            protocolType = null;
            protocolName = null;
            leaderId = null;
            LOG.info("group {} is empty (generation {})", groupId, generation);
            return;
        }
        if (leaderId == null || !members.containsKey(leaderId)) {
            leaderId = members.keySet().iterator().next();
        }
        protocolName = ClassicProtocols.select(members.get(leaderId), members.values());
        state = GroupState.COMPLETING_REBALANCE;
        LOG.info(
                "group {} generation {}: {} members, leader {}, protocol {}",
                groupId,
                generation,
                members.size(),
                leaderId,
                protocolName);
        for (Member m : members.values()) {
            JoinGroupResponseData r =
                    ClassicResponses.joined(m, generation, protocolType, protocolName, leaderId, members.values());
            CompletableFuture<JoinGroupResponseData> f = m.pendingJoin;
            m.pendingJoin = null;
            timers.resetSession(m);
            f.complete(r);
        }
    }

    synchronized CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req) {
        Errors e = validateMember(req.memberId(), req.groupInstanceId(), req.generationId());
        if (e != Errors.NONE) {
            return CompletableFuture.completedFuture(syncResponse(e, new byte[0]));
        }
        if ((req.protocolType() != null && !req.protocolType().equals(protocolType))
                || (req.protocolName() != null && !req.protocolName().equals(protocolName))) {
            return CompletableFuture.completedFuture(syncResponse(Errors.INCONSISTENT_GROUP_PROTOCOL, new byte[0]));
        }
        Member m = members.get(req.memberId());
        switch (state) {
            case PREPARING_REBALANCE:
                return CompletableFuture.completedFuture(syncResponse(Errors.REBALANCE_IN_PROGRESS, new byte[0]));
            case STABLE:
                timers.resetSession(m);
                return CompletableFuture.completedFuture(syncResponse(Errors.NONE, m.assignment));
            case COMPLETING_REBALANCE:
                timers.resetSession(m);
                CompletableFuture<SyncGroupResponseData> f = new CompletableFuture<>();
                m.pendingSync = f;
                if (m.memberId.equals(leaderId)) {
                    Map<String, byte[]> given = new HashMap<>();
                    req.assignments().forEach(a -> given.put(a.memberId(), a.assignment()));
                    state = GroupState.STABLE;
                    for (Member each : members.values()) {
                        each.assignment = given.getOrDefault(each.memberId, new byte[0]);
                        if (each.pendingSync != null) {
                            each.pendingSync.complete(syncResponse(Errors.NONE, each.assignment));
                            each.pendingSync = null;
                        }
                    }
                    LOG.info("group {} generation {} is stable", groupId, generation);
                }
                return f;
            default:
                return CompletableFuture.completedFuture(syncResponse(Errors.UNKNOWN_MEMBER_ID, new byte[0]));
        }
    }

    synchronized Errors heartbeat(String memberId, String instanceId, int generationId) {
        Errors e = validateMember(memberId, instanceId, generationId);
        if (e != Errors.NONE) {
            return e;
        }
        timers.resetSession(members.get(memberId));
        return state == GroupState.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /** For OffsetCommit: generation -1 with no member id is an admin/standalone commit, allowed only on an empty group. */
    synchronized Errors validateCommit(String memberId, String instanceId, int generationId) {
        if (generationId < 0 && (memberId == null || memberId.isEmpty())) {
            return members.isEmpty() ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
        }
        Errors e = validateMember(memberId, instanceId, generationId);
        if (e != Errors.NONE) {
            return e;
        }
        // As Kafka: commits are allowed while preparing a rebalance (eager members commit in their
        // revocation callback right before rejoining), refused only between join and sync.
        if (state == GroupState.COMPLETING_REBALANCE) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        if (members.get(memberId).pendingJoin == null) {
            timers.resetSession(members.get(memberId));
        }
        return Errors.NONE;
    }

    private Errors validateMember(String memberId, String instanceId, int generationId) {
        if (state == GroupState.DEAD) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        Errors identity = staticMembers.check(memberId, instanceId, members.containsKey(memberId));
        if (identity != Errors.NONE) {
            return identity;
        }
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        return Errors.NONE;
    }

    /** LeaveGroup for one member (by member id, or by instance id for static members). */
    synchronized Errors leave(String memberId, String instanceId) {
        String id = memberId;
        if (instanceId != null) {
            String known = staticMembers.memberOf(instanceId);
            if (known == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (memberId != null && !memberId.isEmpty() && !memberId.equals(known)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            id = known;
        }
        Member m = members.get(id);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        LOG.info("group {}: member {} left", groupId, id);
        remove(m, Errors.UNKNOWN_MEMBER_ID, true);
        return Errors.NONE;
    }

    private synchronized void sessionExpired(Member m) {
        if (members.get(m.memberId) != m) {
            return;
        }
        LOG.info("group {}: member {} session expired after {} ms", groupId, m.memberId, m.sessionTimeoutMs);
        remove(m, Errors.UNKNOWN_MEMBER_ID, true);
    }

    private void remove(Member m, Errors toWaiters, boolean rebalance) {
        if (m == null) {
            return;
        }
        ClassicGroupTimers.cancelSession(m);
        members.remove(m.memberId);
        staticMembers.unbind(m);
        answerWaiters(m, toWaiters);
        if (!rebalance) {
            return;
        }
        if (state == GroupState.PREPARING_REBALANCE) {
            maybeCompleteJoin();
        } else if (state == GroupState.STABLE || state == GroupState.COMPLETING_REBALANCE) {
            prepareRebalance("member " + m.memberId + " left");
        }
    }

    /** Answers every parked JoinGroup/SyncGroup with COORDINATOR_NOT_AVAILABLE; membership is kept. */
    synchronized void releaseWaiters() {
        for (Member m : members.values()) {
            answerWaiters(m, Errors.COORDINATOR_NOT_AVAILABLE);
            ClassicGroupTimers.cancelSession(m);
        }
        timers.cancelRebalanceDeadline();
    }

    /** Marks the group deleted; every waiter is told the coordinator moved (it will find an empty group). */
    synchronized void markDead() {
        for (Member m : new ArrayList<>(members.values())) {
            remove(m, Errors.COORDINATOR_NOT_AVAILABLE, false);
        }
        timers.cancelRebalanceDeadline();
        state = GroupState.DEAD;
    }

    /** The topics members subscribed to, when the group runs the consumer protocol (for OffsetDelete). */
    synchronized Set<String> subscribedTopics() {
        return ClassicProtocols.subscribedTopics(protocolType, protocolName, members.values());
    }

    /** Answers the member's parked JoinGroup and SyncGroup, if any, with {@code e}. */
    private void answerWaiters(Member m, Errors e) {
        if (m.pendingJoin != null) {
            m.pendingJoin.complete(ClassicResponses.joinFailed(e, m.memberId));
            m.pendingJoin = null;
        }
        if (m.pendingSync != null) {
            m.pendingSync.complete(syncResponse(e, new byte[0]));
            m.pendingSync = null;
        }
    }

    private SyncGroupResponseData syncResponse(Errors e, byte[] assignment) {
        return ClassicResponses.sync(e, assignment, protocolType, protocolName);
    }
}
