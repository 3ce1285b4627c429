package io.kaas.broker.group;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic group coordinator for every group (this broker coordinates them all). Membership lives in
 * memory ({@link ClassicGroup}); committed offsets in {@link OffsetStore} files, which survive restarts
 * (members simply rejoin after one). Thread-safe: each group is its own monitor, and an offset commit
 * validates membership and writes its file under that monitor, so commits cannot race a rebalance.
 */
public final class GroupCoordinator {
    private final ScheduledExecutorService timer;
    private final OffsetStore offsets;
    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();

    public GroupCoordinator(Path clusterDir, ScheduledExecutorService timer) {
        this.timer = timer;
        this.offsets = new OffsetStore(clusterDir);
    }

    private ClassicGroup group(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, timer));
    }

    private Optional<ClassicGroup> existing(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    public CompletableFuture<JoinGroupResponseData> join(JoinGroupRequestData req, short version, String clientId, String host) {
        if (req.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(new JoinGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code())
                    .setMemberId(req.memberId()).setLeader(""));
        }
        return group(req.groupId()).join(req, version, clientId, host);
    }

    public CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req) {
        return existing(req.groupId()).map(g -> g.sync(req)).orElseGet(() ->
                CompletableFuture.completedFuture(new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())));
    }

    public Errors heartbeat(String groupId, String memberId, String instanceId, int generation) {
        return existing(groupId).map(g -> g.heartbeat(memberId, instanceId, generation)).orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    public Errors leave(String groupId, String memberId, String instanceId) {
        return existing(groupId).map(g -> g.leave(memberId, instanceId)).orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    /**
     * Validates the committer's membership, then stores and durably writes the offsets. Returns the error
     * for every partition (NONE when written).
     */
    public Errors commit(String groupId, String memberId, String instanceId, int generation, List<OffsetStore.Committed> commits) {
        if (groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        ClassicGroup g = group(groupId);
        synchronized (g) {
            Errors e = g.validateCommit(memberId, instanceId, generation);
            if (e == Errors.NONE && !commits.isEmpty()) {
                offsets.commit(groupId, commits);
            }
            return e;
        }
    }

    public Map<OffsetStore.PartitionKey, OffsetStore.Committed> committed(String groupId) {
        return offsets.offsets(groupId);
    }

    /**
     * Groups that have committed offsets, read without any group's monitor (a commit holds it across an
     * fsync, and a metrics scrape must never wait on a disk). Each group's map is an immutable snapshot.
     */
    public Set<String> groupsWithOffsets() {
        return offsets.groups();
    }

    /** Group ids known through membership or committed offsets. */
    public Set<String> groupIds() {
        Set<String> ids = new TreeSet<>(offsets.groups());
        groups.forEach((id, g) -> {
            synchronized (g) {
                if (g.state != GroupState.DEAD) {
                    ids.add(id);
                }
            }
        });
        return ids;
    }

    /** State and protocol type as ListGroups reports them; offsets-only groups are Empty with no protocol. */
    public record Listing(String groupId, String protocolType, String state) {}

    public List<Listing> list() {
        List<Listing> out = new ArrayList<>();
        for (String id : groupIds()) {
            ClassicGroup g = groups.get(id);
            if (g == null) {
                out.add(new Listing(id, "", GroupState.EMPTY.wireName()));
            } else {
                synchronized (g) {
                    out.add(new Listing(id, g.protocolType == null ? "" : g.protocolType, g.state.wireName()));
                }
            }
        }
        return out;
    }

    /** DescribeGroups for one group; empty when the group is unknown. */
    public Optional<DescribeGroupsResponseData.DescribedGroup> describe(String groupId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            return offsets.groups().contains(groupId)
                    ? Optional.of(new DescribeGroupsResponseData.DescribedGroup().setGroupId(groupId)
                            .setGroupState(GroupState.EMPTY.wireName()).setProtocolType("").setProtocolData(""))
                    : Optional.empty();
        }
        synchronized (g) {
            if (g.state == GroupState.DEAD) {
                return Optional.empty();
            }
            DescribeGroupsResponseData.DescribedGroup d = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId).setGroupState(g.state.wireName())
                    .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                    .setProtocolData(g.state == GroupState.STABLE && g.protocolName != null ? g.protocolName : "");
            boolean stable = g.state == GroupState.STABLE;
            for (Member m : g.members.values()) {
                d.members().add(new DescribeGroupsResponseData.DescribedGroupMember()
                        .setMemberId(m.memberId).setGroupInstanceId(m.groupInstanceId).setClientId(m.clientId)
                        .setClientHost(m.clientHost)
                        .setMemberMetadata(stable && g.protocolName != null ? m.protocols.getOrDefault(g.protocolName, new byte[0]) : new byte[0])
                        .setMemberAssignment(stable ? m.assignment : new byte[0]));
            }
            return Optional.of(d);
        }
    }

    /** DeleteGroups: only groups without members; removes the offsets file. */
    public Errors deleteGroup(String groupId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null && !offsets.groups().contains(groupId)) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        if (g != null) {
            synchronized (g) {
                if (!g.members.isEmpty()) {
                    return Errors.NON_EMPTY_GROUP;
                }
                g.markDead();
                groups.remove(groupId, g);
                offsets.deleteGroup(groupId);
            }
        } else {
            offsets.deleteGroup(groupId);
        }
        return Errors.NONE;
    }

    /** OffsetDelete: group-level error, or per-partition deletion refusing topics members subscribe to. */
    public Errors deleteOffsets(String groupId, List<OffsetStore.PartitionKey> partitions, Map<OffsetStore.PartitionKey, Errors> results) {
        ClassicGroup g = groups.get(groupId);
        if (g == null && !offsets.groups().contains(groupId)) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        Object lock = g != null ? g : this;
        synchronized (lock) {
            Set<String> subscribed = g != null ? g.subscribedTopics() : Set.of();
            List<OffsetStore.PartitionKey> deletable = new ArrayList<>();
            for (OffsetStore.PartitionKey k : partitions) {
                if (subscribed.contains(k.topic())) {
                    results.put(k, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
                } else {
                    results.put(k, Errors.NONE);
                    deletable.add(k);
                }
            }
            if (!deletable.isEmpty()) {
                offsets.delete(groupId, deletable);
            }
        }
        return Errors.NONE;
    }

    /** Broker shutdown: every member waiting in JoinGroup/SyncGroup is answered COORDINATOR_NOT_AVAILABLE (retriable). */
    public void shutdown() {
        groups.values().forEach(ClassicGroup::releaseWaiters);
    }
}
