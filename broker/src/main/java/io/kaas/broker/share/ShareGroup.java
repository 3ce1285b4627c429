package io.kaas.broker.share;

import io.kaas.broker.group.TargetAssignment;
import io.kaas.storage.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;

/**
 * One share group: its members, their assignment (Apache's {@link SimpleAssignor}, which may give a
 * partition to several members), and its share partitions. The group is its own monitor: every method
 * runs holding it, and {@link #persist} writes the state of its partitions before a change is answered.
 */
final class ShareGroup {
    private static final SimpleAssignor ASSIGNOR = new SimpleAssignor();

    final String groupId;
    private final ShareStateStore store;
    private final Map<String, ShareGroupMember> members = new LinkedHashMap<>();
    private final Map<TopicIdPartition, SharePartition> partitions = new LinkedHashMap<>();
    private int groupEpoch;
    private int assignmentEpoch;
    private boolean deleted;
    private long releases;
    private final Set<Runnable> releaseWaiters = new java.util.LinkedHashSet<>();

    ShareGroup(String groupId, ShareStateStore store) {
        this.groupId = groupId;
        this.store = store;
        store.load(groupId).forEach((tp, s) -> partitions.put(tp, SharePartition.restore(s)));
    }

    synchronized int groupEpoch() {
        return groupEpoch;
    }

    synchronized int assignmentEpoch() {
        return assignmentEpoch;
    }

    synchronized List<ShareGroupMember> members() {
        return List.copyOf(members.values());
    }

    synchronized ShareGroupMember member(String memberId) {
        return members.get(memberId);
    }

    synchronized boolean isEmpty() {
        return members.isEmpty();
    }

    /** DeleteGroups took the group away: whoever still holds it must look the id up again. */
    synchronized boolean isDeleted() {
        return deleted;
    }

    synchronized void markDeleted() {
        deleted = true;
    }

    /** A member joins, or its subscription changes: the assignment is computed again. */
    synchronized ShareGroupMember join(String memberId, long nowMs) {
        ShareGroupMember m = members.computeIfAbsent(memberId, ShareGroupMember::new);
        m.lastHeartbeatMs = nowMs;
        return m;
    }

    /**
     * Computes the assignment over the members' subscriptions and the topics as they are now; when it
     * changed, the group's epoch moves on and every member gets it with that epoch.
     */
    synchronized void reassign(Map<String, TopicInfo> topicsByName) {
        Map<String, Set<String>> subscriptions = new HashMap<>();
        Map<String, Map<Uuid, Set<Integer>>> previous = new HashMap<>();
        members.values().forEach(m -> {
            subscriptions.put(m.memberId, m.subscribedTopicNames);
            previous.put(m.memberId, m.assignment);
        });
        Map<String, Map<Uuid, Set<Integer>>> next = members.isEmpty()
                ? Map.of()
                : TargetAssignment.forSubscriptions(ASSIGNOR, subscriptions, topicsByName, previous);
        boolean changed = false;
        for (ShareGroupMember m : members.values()) {
            Map<Uuid, Set<Integer>> mine = next.getOrDefault(m.memberId, Map.of());
            if (!mine.equals(m.assignment) || m.memberEpoch == 0) {
                changed = true;
            }
        }
        if (changed || next.size() != previous.size()) {
            groupEpoch++;
            assignmentEpoch = groupEpoch;
            for (ShareGroupMember m : members.values()) {
                m.assignment = next.getOrDefault(m.memberId, Map.of());
                m.memberEpoch = groupEpoch;
            }
        }
    }

    /** A member leaves or is timed out: its records are released for the others. */
    synchronized void remove(String memberId, Function<TopicIdPartition, SharePartition.Limits> limits) {
        if (members.remove(memberId) == null) {
            return;
        }
        boolean released = false;
        for (Map.Entry<TopicIdPartition, SharePartition> e : partitions.entrySet()) {
            released |= e.getValue().releaseMember(memberId, limits.apply(e.getKey()));
        }
        if (released) {
            persist();
            signalReleased();
        }
    }

    /** Members not heard from within the session timeout. */
    synchronized List<String> expiredMembers(long nowMs, int sessionTimeoutMs) {
        List<String> out = new ArrayList<>();
        members.values().forEach(m -> {
            if (nowMs - m.lastHeartbeatMs > sessionTimeoutMs) {
                out.add(m.memberId);
            }
        });
        return out;
    }

    /** Releases expired locks of every partition (then persists); whether any was. */
    synchronized boolean expireLocks(long nowMs, Function<TopicIdPartition, SharePartition.Limits> limits) {
        boolean any = false;
        for (Map.Entry<TopicIdPartition, SharePartition> e : partitions.entrySet()) {
            any |= e.getValue().expireLocks(nowMs, limits.apply(e.getKey()));
        }
        if (any) {
            persist();
            signalReleased();
        }
        return any;
    }

    /** The partition's state, initialised at {@code initialStart} the first time the group reads it. */
    synchronized SharePartition partition(TopicIdPartition tp, long initialStart) {
        return partitions.computeIfAbsent(tp, k -> new SharePartition(initialStart));
    }

    synchronized SharePartition existingPartition(TopicIdPartition tp) {
        return partitions.get(tp);
    }

    synchronized Map<TopicIdPartition, SharePartition> partitions() {
        return Map.copyOf(partitions);
    }

    synchronized void forgetPartition(TopicIdPartition tp) {
        partitions.remove(tp);
    }

    /**
     * Hands the state of every share partition of the group to the store, in the order of the changes (the group's
     * monitor is held); the future completes once it is durable. Whoever answers for a change waits for it, outside
     * the monitor; changes nobody answers for (a sweep's releases) are carried by it all the same.
     */
    synchronized CompletableFuture<Void> persist() {
        Map<TopicIdPartition, SharePartition.Snapshot> out = new LinkedHashMap<>();
        partitions.forEach((tp, p) -> out.put(tp, p.snapshot()));
        return store.save(groupId, out);
    }

    /**
     * How many times records of the group may have become available again (released, a lock expired, a member
     * left, an acknowledgement, offsets reset). A waiting ShareFetch reads it before it tries to acquire and
     * passes it to {@link #wakeOnRelease}, so a release in between is not missed.
     */
    synchronized long releases() {
        return releases;
    }

    /** Runs {@code wake} at the next release after {@code seen}; false (not registered) when there was one already. */
    synchronized boolean wakeOnRelease(long seen, Runnable wake) {
        if (releases != seen) {
            return false;
        }
        releaseWaiters.add(wake);
        return true;
    }

    synchronized void cancelWake(Runnable wake) {
        releaseWaiters.remove(wake);
    }

    /** A release: every waiting ShareFetch is woken (each wake only schedules its next attempt). */
    synchronized void signalReleased() {
        releases++;
        List<Runnable> waiting = List.copyOf(releaseWaiters);
        releaseWaiters.clear();
        waiting.forEach(Runnable::run);
    }

    /** The assigned partitions of a member, sorted, for its heartbeat response. */
    static Map<Uuid, List<Integer>> sorted(Map<Uuid, Set<Integer>> assignment) {
        Map<Uuid, List<Integer>> out = new LinkedHashMap<>();
        assignment.forEach((id, ps) -> out.put(id, List.copyOf(new TreeSet<>(ps))));
        return out;
    }

    static SharePartition.Limits limits(GroupConfig c) {
        return new SharePartition.Limits(
                c.shareRecordLockDurationMs().orElse(30_000),
                c.shareDeliveryCountLimit().orElse(5),
                c.sharePartitionMaxRecordLocks().orElse(2_000));
    }
}
