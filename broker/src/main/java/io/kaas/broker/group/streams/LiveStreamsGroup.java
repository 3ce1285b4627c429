package io.kaas.broker.group.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.group.CommitPartitionValidator;
import org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescription;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.generated.StreamsGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.streams.CurrentAssignmentBuilder;
import org.apache.kafka.coordinator.group.streams.MemberState;
import org.apache.kafka.coordinator.group.streams.MemberTaskOffsets;
import org.apache.kafka.coordinator.group.streams.StreamsGroup;
import org.apache.kafka.coordinator.group.streams.StreamsGroupMember;
import org.apache.kafka.coordinator.group.streams.StreamsTopology;
import org.apache.kafka.coordinator.group.streams.TargetAssignmentBuilder;
import org.apache.kafka.coordinator.group.streams.TasksTuple;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredTopology;
import org.apache.kafka.coordinator.group.streams.topics.InternalTopicManager;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streams group (KIP-1071): Apache's own {@link StreamsGroup} model (members, topology, configured topology,
 * target assignment, task owners), driven by each heartbeat as Apache's {@code GroupMetadataManager.streamsGroupHeartbeat}:
 * the member is created or updated; the topology initialized and configured ({@link InternalTopicManager}: missing
 * source topics, internal topics to create, partition counts); the group epoch bumped when something the assignment
 * depends on changed; the target assignment computed by Apache's {@link StickyTaskAssignor}; and the member moved one
 * step toward it ({@link CurrentAssignmentBuilder}: a task leaves its owner first and is given to another member only
 * once revoked).
 *
 * <p>Apache applies its changes by replaying coordinator records; here they are applied to the model directly (no
 * snapshot of the {@link SnapshotRegistry} is ever taken, so reads see the latest state). Every method runs under this
 * object's monitor; session and revocation deadlines run on {@code kaas-timer} and re-enter through it.
 */
public final class LiveStreamsGroup {
    private static final Logger LOG = LoggerFactory.getLogger(LiveStreamsGroup.class);
    /** Reads of Apache's timeline structures at the latest state. */
    static final long LATEST = Long.MAX_VALUE;

    static final String ASSIGNOR = "sticky";

    private final String groupId;
    /** The group's settings now (its group configs over the broker's); read where used, so changes apply at once. */
    private final Supplier<StreamsGroupConfig> config;

    private final StreamsGroup group;
    private final StickyTaskAssignor assignor = new StickyTaskAssignor();
    /** Session and revocation deadlines of the members; touched only under this object's monitor. */
    private final StreamsMemberDeadlines deadlines;
    /** The group's topology, its configured form and its pushed description; used under this monitor. */
    private final StreamsGroupTopology topologies;

    private boolean dead;

    LiveStreamsGroup(String groupId, Supplier<StreamsGroupConfig> config, ScheduledExecutorService timer) {
        this.groupId = groupId;
        this.config = config;
        this.deadlines = new StreamsMemberDeadlines(timer);
        LogContext log = new LogContext("[streams group " + groupId + "] ");
        this.group = new StreamsGroup(log, new SnapshotRegistry(log), groupId);
        this.topologies = new StreamsGroupTopology(groupId, group);
    }

    public String groupId() {
        return groupId;
    }

    synchronized StreamsHeartbeat heartbeat(
            StreamsGroupHeartbeatRequestData req, short version, String clientId, String host, TopicImage image) {
        if (dead) {
            return StreamsHeartbeat.error(Errors.COORDINATOR_NOT_AVAILABLE, null);
        }
        int epoch = req.memberEpoch();
        String memberId = req.memberId();
        if (epoch == StreamsMemberChecks.LEAVE_EPOCH || epoch == StreamsMemberChecks.STATIC_LEAVE_EPOCH) {
            return leave(memberId, epoch);
        }
        StreamsGroupMember member;
        if (epoch == 0) {
            member = group.getOrCreateDefaultMember(memberId);
        } else {
            member = group.members().get(memberId);
            if (member == null) {
                return StreamsHeartbeat.error(
                        Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + groupId + ".");
            }
            Optional<StreamsHeartbeat> refused = StreamsMemberChecks.epochRefused(member, req);
            if (refused.isPresent()) {
                return refused.get();
            }
        }
        List<StreamsGroupHeartbeatResponseData.Status> status = new ArrayList<>();

        // 1. The member, created or updated; any change of its metadata bumps the group epoch.
        StreamsGroupMember updated = new StreamsGroupMember.Builder(member)
                .maybeUpdateInstanceId(Optional.empty())
                .maybeUpdateRackId(Optional.ofNullable(req.rackId()))
                .maybeUpdateRebalanceTimeoutMs(
                        req.rebalanceTimeoutMs() == -1 ? OptionalInt.empty() : OptionalInt.of(req.rebalanceTimeoutMs()))
                .maybeUpdateTopologyEpoch(
                        req.topology() != null ? OptionalInt.of(req.topology().epoch()) : OptionalInt.empty())
                .setClientId(clientId)
                .setClientHost(host)
                .maybeUpdateProcessId(Optional.ofNullable(req.processId()))
                .maybeUpdateClientTags(Optional.ofNullable(req.clientTags())
                        .map(kv -> kv.stream()
                                .collect(Collectors.toMap(
                                        StreamsGroupHeartbeatRequestData.KeyValue::key,
                                        StreamsGroupHeartbeatRequestData.KeyValue::value))))
                .maybeUpdateUserEndpoint(Optional.ofNullable(req.userEndpoint())
                        .map(e -> new StreamsGroupMemberMetadataValue.Endpoint()
                                .setHost(e.host())
                                .setPort(e.port())))
                .build();

        // 2. The group's topology: initialized by the first member; a member of a stale epoch is told so.
        StreamsTopology topology;
        try {
            topology = topologies.resolve(memberId, req.topology());
        } catch (IllegalArgumentException e) {
            return StreamsHeartbeat.error(Errors.INVALID_REQUEST, e.getMessage());
        }
        boolean bump = !updated.equals(member) || !group.hasMember(memberId);
        if (bump) {
            group.updateMember(updated);
            if (epoch == 0 && member.memberEpoch() == 0) {
                LOG.info("streams group {}: member {} joined", groupId, memberId);
            }
        }
        if (updated.topologyEpoch() < topology.topologyEpoch()) {
            status.add(new StreamsGroupHeartbeatResponseData.Status()
                    .setStatusCode(StreamsGroupHeartbeatResponse.Status.STALE_TOPOLOGY.code())
                    .setStatusDetail(String.format(
                            "The member's topology epoch %d is behind the group's topology epoch %d.",
                            updated.topologyEpoch(), topology.topologyEpoch())));
        }

        // 3. The configured topology (internal topics, partition counts), again whenever a topic it needs changed.
        StreamsGroupTopology.Configured c = topologies.configure(memberId, topology, image);
        bump |= c.fingerprintChanged();
        ConfiguredTopology configured = c.topology();
        int validatedEpoch = -1;
        if (configured.isReady()) {
            validatedEpoch = topology.topologyEpoch();
            Optional<StreamsHeartbeat> invalid =
                    StreamsMemberChecks.invalidTasks(configured.subtopologies().get(), req);
            if (invalid.isPresent()) {
                return invalid.get();
            }
        }
        if (validatedEpoch != group.validatedTopologyEpoch()) {
            bump = true;
            group.setValidatedTopologyEpoch(validatedEpoch);
        }
        Map<String, String> assignmentConfigs = config.get().assignmentConfigs();
        if (!assignmentConfigs.equals(group.lastAssignmentConfigs())) {
            bump = true;
            group.setLastAssignmentConfigs(assignmentConfigs);
        }
        if (bump) {
            group.setGroupEpoch(group.groupEpoch() + 1);
            LOG.info(
                    "streams group {}: epoch {} ({} members, topology epoch {} {})",
                    groupId,
                    group.groupEpoch(),
                    group.numMembers(),
                    topology.topologyEpoch(),
                    configured.isReady() ? "ready" : "not ready");
        }

        // 4. The target assignment, recomputed when the group epoch moved past it.
        TasksTuple target;
        try {
            target = targetOf(updated, configured, image);
        } catch (TaskAssignorException e) {
            LOG.warn("streams group {}: the task assignor failed", groupId, e);
            return StreamsHeartbeat.error(Errors.UNKNOWN_SERVER_ERROR, "Task assignment failed: " + e.getMessage());
        }

        // 5. One step of the member toward its target.
        updated = reconcile(updated, target, req);
        if (req.taskOffsets() != null && req.taskEndOffsets() != null) {
            MemberTaskOffsets before = group.taskOffsets(memberId);
            group.updateTaskOffsets(
                    memberId,
                    (before == null ? MemberTaskOffsets.EMPTY : before)
                            .update(req.taskOffsets(), req.taskEndOffsets()));
        }
        resetSession(memberId);
        if (req.shutdownApplication()) {
            group.setShutdownRequestMemberId(memberId);
        }
        return new StreamsHeartbeat(
                StreamsHeartbeatAnswer.of(
                        group, config.get(), req, version, member, updated, configured, image, status),
                configured.topicConfigurationException().isPresent()
                        ? configured.internalTopicsToBeCreated()
                        : Map.<String, CreateTopicsRequestData.CreatableTopic>of());
    }

    private TasksTuple targetOf(StreamsGroupMember member, ConfiguredTopology configured, TopicImage image) {
        int groupEpoch = group.groupEpoch();
        if (groupEpoch <= group.assignmentEpoch()) {
            return group.targetAssignment(member.memberId(), Optional.empty());
        }
        TargetAssignmentBuilder.TargetAssignmentResult r = new TargetAssignmentBuilder(
                        groupId, groupEpoch, assignor, config.get().assignmentConfigs())
                .withMembers(group.members())
                .withTopology(configured)
                .withMetadataImage(image)
                .withTargetAssignment(group.targetAssignment())
                .withTaskOffsets(group.taskOffsets())
                .withTime(Time.SYSTEM)
                .build();
        r.targetAssignment().forEach(group::updateTargetAssignment);
        group.setTargetAssignmentMetadata(groupEpoch, System.currentTimeMillis());
        LOG.info(
                "streams group {}: target assignment of epoch {} computed by the {} assignor",
                groupId,
                groupEpoch,
                ASSIGNOR);
        return group.targetAssignment(member.memberId(), Optional.empty());
    }

    private StreamsGroupMember reconcile(
            StreamsGroupMember member, TasksTuple target, StreamsGroupHeartbeatRequestData req) {
        if (member.isReconciledTo(group.assignmentEpoch())) {
            return member;
        }
        TasksTuple owned = req.activeTasks() != null && req.standbyTasks() != null && req.warmupTasks() != null
                ? TasksTuple.fromHeartbeatRequest(req.activeTasks(), req.standbyTasks(), req.warmupTasks())
                : null;
        StreamsGroupMember next = new CurrentAssignmentBuilder(member)
                .withTargetAssignment(group.assignmentEpoch(), target)
                .withCurrentActiveTaskProcessId(group::currentActiveTaskProcessId)
                .withCurrentStandbyTaskProcessIds(group::currentStandbyTaskProcessIds)
                .withCurrentWarmupTaskProcessIds(group::currentWarmupTaskProcessIds)
                .withOwnedAssignment(owned)
                .build();
        if (!next.equals(member)) {
            group.updateMember(next);
            if (next.state() == MemberState.UNREVOKED_TASKS) {
                scheduleRevocation(next);
            } else {
                deadlines.cancelRevocation(next.memberId());
            }
        }
        return next;
    }

    private StreamsHeartbeat leave(String memberId, int epoch) {
        if (!group.hasMember(memberId)) {
            return StreamsHeartbeat.error(
                    Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + groupId + ".");
        }
        LOG.info("streams group {}: member {} left", groupId, memberId);
        remove(memberId);
        return new StreamsHeartbeat(
                new StreamsGroupHeartbeatResponseData()
                        .setMemberId(memberId)
                        .setMemberEpoch(epoch)
                        .setHeartbeatIntervalMs(0),
                Map.of());
    }

    /** A member leaves or is fenced: its tasks are free and the group epoch moves, so the next heartbeat reassigns. */
    private void remove(String memberId) {
        deadlines.cancel(memberId);
        group.removeMember(memberId);
        group.removeTargetAssignment(memberId);
        if (group.getShutdownRequestMemberId().filter(memberId::equals).isPresent() && group.numMembers() == 0) {
            group.setShutdownRequestMemberId(null);
        }
        group.setGroupEpoch(group.groupEpoch() + 1);
    }

    private void resetSession(String memberId) {
        deadlines.resetSession(memberId, config.get().sessionTimeoutMs(), () -> sessionExpired(memberId));
    }

    private void scheduleRevocation(StreamsGroupMember m) {
        deadlines.startRevocation(m.memberId(), m.rebalanceTimeoutMs(), () -> revocationTimedOut(m.memberId()));
    }

    private synchronized void sessionExpired(String memberId) {
        if (dead || !group.hasMember(memberId)) {
            return;
        }
        LOG.info(
                "streams group {}: member {} session expired after {} ms",
                groupId,
                memberId,
                config.get().sessionTimeoutMs());
        remove(memberId);
    }

    private synchronized void revocationTimedOut(String memberId) {
        deadlines.revocationFired(memberId);
        StreamsGroupMember m = group.members().get(memberId);
        if (dead || m == null || m.state() != MemberState.UNREVOKED_TASKS) {
            return;
        }
        LOG.info(
                "streams group {}: member {} did not revoke its tasks within its rebalance timeout ({} ms); fencing it",
                groupId,
                memberId,
                m.rebalanceTimeoutMs());
        remove(memberId);
    }

    /**
     * OffsetCommit or TxnOffsetCommit from a member of this group, as Apache's {@code StreamsGroup.validateOffsetCommit}:
     * its epoch must be current (or, per partition, not older than the epoch it was given the task in).
     */
    public synchronized Errors validateCommit(
            String memberId,
            String instanceId,
            int memberEpoch,
            boolean transactional,
            short apiVersion,
            List<String> topics,
            List<Integer> partitions) {
        if (dead) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        try {
            CommitPartitionValidator v =
                    group.validateOffsetCommit(memberId, instanceId, memberEpoch, transactional, apiVersion);
            for (int i = 0; i < topics.size(); i++) {
                v.validate(topics.get(i), org.apache.kafka.common.Uuid.ZERO_UUID, partitions.get(i));
            }
            return Errors.NONE;
        } catch (ApiException e) {
            return Errors.forException(e);
        }
    }

    /** OffsetFetch naming a member, as Apache's {@code StreamsGroup.validateOffsetFetch}. */
    public synchronized Errors validateFetch(String memberId, int memberEpoch) {
        if (memberId == null || memberId.isEmpty() || memberEpoch < 0) {
            return Errors.NONE;
        }
        try {
            group.validateOffsetFetch(memberId, memberEpoch, LATEST);
            return Errors.NONE;
        } catch (ApiException e) {
            return Errors.forException(e);
        }
    }

    /** Apache's state names: Empty, NotReady, Assigning, Reconciling, Stable. */
    public synchronized String stateName() {
        return group.stateAsString(LATEST);
    }

    public synchronized boolean isEmpty() {
        return group.numMembers() == 0;
    }

    /** The source topics of the group's topology (for OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC). */
    public synchronized boolean readsTopic(String topic) {
        return group.numMembers() > 0 && group.isSubscribedToTopic(topic);
    }

    /** StreamsGroupDescribe, Apache's own rendering of its model, with the pushed topology description if asked. */
    synchronized StreamsGroupDescribeResponseData.DescribedGroup describe(boolean includeTopologyDescription) {
        StreamsGroupDescribeResponseData.DescribedGroup g = group.asDescribedGroup(LATEST, ASSIGNOR);
        if (includeTopologyDescription) {
            topologies.attachDescription(g);
        }
        return g;
    }

    /** See {@link StreamsGroupTopology#epochWithoutDescription}. */
    synchronized int topologyEpochWithoutDescription() {
        return topologies.epochWithoutDescription();
    }

    /** See {@link StreamsGroupTopology#storeDescription}. */
    synchronized ApiError storeDescription(String memberId, int topologyEpoch, StreamsGroupTopologyDescription d) {
        return dead
                ? new ApiError(Errors.NOT_COORDINATOR, null)
                : topologies.storeDescription(memberId, topologyEpoch, d);
    }

    /** The group is deleted or its coordinator moved: members still heartbeating are told to look again. */
    public synchronized void markDead() {
        dead = true;
        deadlines.cancelAll();
    }

    public synchronized boolean isDead() {
        return dead;
    }
}
