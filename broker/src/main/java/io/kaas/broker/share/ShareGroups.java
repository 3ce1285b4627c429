package io.kaas.broker.share;

import io.kaas.broker.group.GroupConfigs;
import io.kaas.storage.TopicInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share group coordinator of a broker on its own: every share group by id, the heartbeat protocol
 * (KIP-932: members join with an id they chose, leave with epoch -1, are removed after the group's
 * {@code share.session.timeout.ms} without a heartbeat), and a sweep on the broker's timer that
 * releases expired acquisition locks and the records of members that died. Groups are created on
 * their first heartbeat; their share-partition state is read back from the data directory then.
 */
public final class ShareGroups implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShareGroups.class);
    private static final long SWEEP_MS = 250;

    private final ShareStateStore store;
    private final GroupConfigs configs;
    private final Supplier<Map<String, TopicInfo>> topics;
    private final ConcurrentHashMap<String, ShareGroup> groups = new ConcurrentHashMap<>();
    private final ShareSessions sessions = new ShareSessions();
    private final ScheduledFuture<?> sweep;

    public ShareGroups(
            Path clusterDir,
            GroupConfigs configs,
            Supplier<Map<String, TopicInfo>> topics,
            ScheduledExecutorService timer) {
        this.store = new ShareStateStore(clusterDir);
        this.configs = configs;
        this.topics = topics;
        this.sweep = timer.scheduleWithFixedDelay(this::sweepSafely, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    /** Applies a ShareFetch to its member's share session ({@link ShareSessions#apply}). */
    public ShareSessions.Opened sessions(
            String groupId, String memberId, int epoch, Set<TopicIdPartition> added, Set<TopicIdPartition> forgotten) {
        return sessions.apply(groupId, memberId, epoch, added, forgotten);
    }

    /** Checks and moves on the share session of a ShareAcknowledge. */
    public Errors acknowledgeInSession(String groupId, String memberId, int epoch) {
        return sessions.acknowledge(groupId, memberId, epoch);
    }

    public SharePartition.Limits limitsOf(String groupId) {
        return limits(groupId);
    }

    GroupConfig config(String groupId) {
        return configs.of(groupId);
    }

    SharePartition.Limits limits(String groupId) {
        return ShareGroup.limits(configs.of(groupId));
    }

    Map<String, TopicInfo> topics() {
        return topics.get();
    }

    /** The group, if it had a heartbeat since the broker started. */
    Optional<ShareGroup> group(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    /** The group, also when it had no heartbeat since the broker started but has stored state. */
    Optional<ShareGroup> groupOrStored(String groupId) {
        ShareGroup g = groups.get(groupId);
        if (g != null || !store.exists(groupId)) {
            return Optional.ofNullable(g);
        }
        return Optional.of(groups.computeIfAbsent(groupId, id -> new ShareGroup(id, store)));
    }

    /** Whether {@code groupId} is a share group (since the broker started, or with stored state). */
    public boolean isShareGroup(String groupId) {
        return groups.containsKey(groupId) || store.exists(groupId);
    }

    /**
     * DeleteGroups of a share group: NON_EMPTY_GROUP while it has members; otherwise the group and its state file
     * are gone, answered once the removal is durable. Null when {@code groupId} is no share group.
     */
    public Errors delete(String groupId) {
        Optional<ShareGroup> found = groupOrStored(groupId);
        if (found.isEmpty()) {
            return null;
        }
        ShareGroup g = found.get();
        java.util.concurrent.CompletableFuture<Void> durable;
        synchronized (g) {
            if (!g.isEmpty()) {
                return Errors.NON_EMPTY_GROUP;
            }
            g.markDeleted();
            groups.remove(groupId, g);
            durable = store.delete(groupId);
        }
        try {
            durable.join();
            return Errors.NONE;
        } catch (RuntimeException e) {
            return io.kaas.protocol.ErrorMapping.toKafka(e);
        }
    }

    public Set<String> groupIds() {
        return Set.copyOf(groups.keySet());
    }

    public ShareGroupHeartbeatResponseData heartbeat(
            ShareGroupHeartbeatRequestData req, String clientId, String clientHost) {
        ShareGroupHeartbeatResponseData out = new ShareGroupHeartbeatResponseData();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("GroupId can't be empty.");
        }
        if (req.memberId() == null || req.memberId().isEmpty()) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("MemberId can't be empty.");
        }
        GroupConfig c = configs.of(req.groupId());
        long now = System.currentTimeMillis();
        while (true) {
            ShareGroup g = groups.computeIfAbsent(req.groupId(), id -> new ShareGroup(id, store));
            synchronized (g) {
                if (!g.isDeleted()) { // deleted meanwhile: the id names a new group now
                    return heartbeatIn(g, req, c, now, clientId, clientHost, out);
                }
            }
        }
    }

    private ShareGroupHeartbeatResponseData heartbeatIn(
            ShareGroup g,
            ShareGroupHeartbeatRequestData req,
            GroupConfig c,
            long now,
            String clientId,
            String clientHost,
            ShareGroupHeartbeatResponseData out) {
        ShareGroupMember m = g.member(req.memberId());
        if (req.memberEpoch() == -1) {
            g.remove(req.memberId(), tp -> limits(req.groupId()));
            sessions.close(req.groupId(), req.memberId());
            g.reassign(topics.get());
            return out.setMemberId(req.memberId()).setMemberEpoch(-1);
        }
        if (req.memberEpoch() == 0) {
            if (req.subscribedTopicNames() == null || req.subscribedTopicNames().isEmpty()) {
                return out.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("SubscribedTopicNames must be set in first request.");
            }
            m = g.join(req.memberId(), now);
        } else if (m == null) {
            return out.setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())
                    .setErrorMessage("member " + req.memberId() + " is not in share group " + req.groupId());
        } else if (req.memberEpoch() > m.memberEpoch) {
            return out.setErrorCode(Errors.FENCED_MEMBER_EPOCH.code())
                    .setErrorMessage("member epoch " + req.memberEpoch() + " is ahead of " + m.memberEpoch);
        }
        m.lastHeartbeatMs = now;
        m.clientId = clientId;
        m.clientHost = clientHost;
        if (req.rackId() != null) {
            m.rackId = req.rackId();
        }
        if (req.subscribedTopicNames() != null) {
            m.subscribedTopicNames = Set.copyOf(req.subscribedTopicNames());
        }
        int before = m.memberEpoch;
        g.reassign(topics.get());
        out.setMemberId(m.memberId)
                .setMemberEpoch(m.memberEpoch)
                .setHeartbeatIntervalMs(c.shareHeartbeatIntervalMs().orElse(5_000));
        if (req.memberEpoch() == 0 || before != m.memberEpoch || req.memberEpoch() != m.memberEpoch) {
            ShareGroupHeartbeatResponseData.Assignment a = new ShareGroupHeartbeatResponseData.Assignment();
            ShareGroup.sorted(m.assignment)
                    .forEach((id, ps) -> a.topicPartitions()
                            .add(new ShareGroupHeartbeatResponseData.TopicPartitions()
                                    .setTopicId(id)
                                    .setPartitions(ps)));
            out.setAssignment(a);
        }
        return out;
    }

    /** ShareGroupDescribe of one group; GROUP_ID_NOT_FOUND when no share group of that id is known. */
    public ShareGroupDescribeResponseData.DescribedGroup describe(String groupId) {
        ShareGroupDescribeResponseData.DescribedGroup out =
                new ShareGroupDescribeResponseData.DescribedGroup().setGroupId(groupId);
        ShareGroup g = groups.get(groupId);
        if (g == null) {
            return out.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " not found.");
        }
        Map<String, TopicInfo> byName = topics.get();
        synchronized (g) {
            out.setGroupState(g.isEmpty() ? "Empty" : "Stable")
                    .setGroupEpoch(g.groupEpoch())
                    .setAssignmentEpoch(g.assignmentEpoch())
                    .setAssignorName("simple");
            for (ShareGroupMember m : g.members()) {
                ShareGroupDescribeResponseData.Assignment a = new ShareGroupDescribeResponseData.Assignment();
                ShareGroup.sorted(m.assignment).forEach((id, ps) -> {
                    String name = byName.values().stream()
                            .filter(t -> uuid(t.topicId()).equals(id))
                            .map(TopicInfo::name)
                            .findFirst()
                            .orElse(null);
                    a.topicPartitions()
                            .add(new ShareGroupDescribeResponseData.TopicPartitions()
                                    .setTopicId(id)
                                    .setTopicName(name)
                                    .setPartitions(ps));
                });
                out.members()
                        .add(new ShareGroupDescribeResponseData.Member()
                                .setMemberId(m.memberId)
                                .setRackId(m.rackId)
                                .setMemberEpoch(m.memberEpoch)
                                .setClientId(m.clientId == null ? "" : m.clientId)
                                .setClientHost(m.clientHost == null ? "" : m.clientHost)
                                .setSubscribedTopicNames(List.copyOf(new java.util.TreeSet<>(m.subscribedTopicNames)))
                                .setAssignment(a));
            }
        }
        return out;
    }

    /** State of each known share group, for ListGroups: {@code Empty} or {@code Stable}. */
    public Map<String, String> states() {
        Map<String, String> out = new java.util.TreeMap<>();
        groups.forEach((id, g) -> out.put(id, g.isEmpty() ? "Empty" : "Stable"));
        return out;
    }

    private void sweepSafely() {
        try {
            sweep(System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.warn("share group sweep failed: {}", e.toString());
        }
    }

    /** Removes members past their session timeout and releases expired locks. */
    void sweep(long nowMs) {
        for (ShareGroup g : groups.values()) {
            GroupConfig c = configs.of(g.groupId);
            SharePartition.Limits limits = ShareGroup.limits(c);
            synchronized (g) {
                List<String> expired = new ArrayList<>(
                        g.expiredMembers(nowMs, c.shareSessionTimeoutMs().orElse(45_000)));
                for (String memberId : expired) {
                    LOG.info("share group {}: member {} timed out; its records are released", g.groupId, memberId);
                    g.remove(memberId, tp -> limits);
                    sessions.close(g.groupId, memberId);
                }
                if (!expired.isEmpty()) {
                    g.reassign(topics.get());
                }
                g.expireLocks(nowMs, tp -> limits);
            }
        }
    }

    /** The partitions of a group's state keyed as the fetch path keys them. */
    static TopicIdPartition key(TopicInfo t, int partition) {
        return new TopicIdPartition(uuid(t.topicId()), partition, t.name());
    }

    static Uuid uuid(java.util.UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** Stops the sweep, then writes the state handed over and stops the state writer. */
    @Override
    public void close() {
        sweep.cancel(false);
        store.close();
    }
}
