package io.kaas.broker.group.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.group.CommitPartitionValidator;
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
import org.apache.kafka.coordinator.group.streams.topics.EndpointToPartitionsManager;
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
    private final StreamsGroupConfig config;
    private final ScheduledExecutorService timer;
    private final StreamsGroup group;
    private final StickyTaskAssignor assignor = new StickyTaskAssignor();
    private final Map<String, ScheduledFuture<?>> sessions = new HashMap<>();
    private final Map<String, ScheduledFuture<?>> revocations = new HashMap<>();
    /** The required topics' ids and partition counts when the topology was last configured. */
    private Map<String, String> fingerprint;

    private boolean dead;

    LiveStreamsGroup(String groupId, StreamsGroupConfig config, ScheduledExecutorService timer) {
        this.groupId = groupId;
        this.config = config;
        this.timer = timer;
        LogContext log = new LogContext("[streams group " + groupId + "] ");
        this.group = new StreamsGroup(log, new SnapshotRegistry(log), groupId);
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
            topology = topology(memberId, req.topology());
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
        Map<String, String> now = image.fingerprint(topology.requiredTopics());
        ConfiguredTopology configured;
        if (group.configuredTopology().isEmpty()
                || group.configuredTopology().get().topologyEpoch() != topology.topologyEpoch()
                || !now.equals(fingerprint)) {
            if (!now.equals(fingerprint)) {
                bump = true;
            }
            fingerprint = now;
            long hash = now.hashCode();
            group.setMetadataHash(hash);
            configured =
                    InternalTopicManager.configureTopics(LOG, groupId, memberId, hash, topology, image, Time.SYSTEM);
            group.setConfiguredTopology(configured);
        } else {
            configured = group.configuredTopology().get();
        }
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
        Map<String, String> assignmentConfigs = config.assignmentConfigs();
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
                answer(req, version, member, updated, configured, image, status),
                configured.topicConfigurationException().isPresent()
                        ? configured.internalTopicsToBeCreated()
                        : Map.<String, CreateTopicsRequestData.CreatableTopic>of());
    }

    private StreamsTopology topology(String memberId, StreamsGroupHeartbeatRequestData.Topology requested) {
        Optional<StreamsTopology> current = group.topology();
        if (requested == null) {
            return current.orElseThrow(() -> new IllegalArgumentException("The group has no topology yet."));
        }
        StreamsTopology fromRequest = StreamsTopology.fromHeartbeatRequest(requested);
        if (current.isEmpty()) {
            LOG.info(
                    "streams group {}: member {} initialized the topology (epoch {})",
                    groupId,
                    memberId,
                    requested.epoch());
            group.setTopology(fromRequest);
            return fromRequest;
        }
        if (current.get().topologyEpoch() > requested.epoch() || current.get().equals(fromRequest)) {
            return current.get();
        }
        boolean othersPresent = group.members().keySet().stream().anyMatch(id -> !id.equals(memberId));
        if (othersPresent) {
            throw new IllegalArgumentException("Topology updates are not supported yet.");
        }
        // The group's last members are gone: an application restarted with a changed topology starts over.
        LOG.info("streams group {}: member {} replaced the topology (epoch {})", groupId, memberId, requested.epoch());
        group.setTopology(fromRequest);
        return fromRequest;
    }

    private TasksTuple targetOf(StreamsGroupMember member, ConfiguredTopology configured, TopicImage image) {
        int groupEpoch = group.groupEpoch();
        if (groupEpoch <= group.assignmentEpoch()) {
            return group.targetAssignment(member.memberId(), Optional.empty());
        }
        TargetAssignmentBuilder.TargetAssignmentResult r = new TargetAssignmentBuilder(
                        groupId, groupEpoch, assignor, config.assignmentConfigs())
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
                cancel(revocations.remove(next.memberId()));
            }
        }
        return next;
    }

    private StreamsGroupHeartbeatResponseData answer(
            StreamsGroupHeartbeatRequestData req,
            short version,
            StreamsGroupMember before,
            StreamsGroupMember member,
            ConfiguredTopology configured,
            TopicImage image,
            List<StreamsGroupHeartbeatResponseData.Status> status) {
        StreamsGroupHeartbeatResponseData r = new StreamsGroupHeartbeatResponseData()
                .setMemberId(member.memberId())
                .setMemberEpoch(member.memberEpoch())
                .setHeartbeatIntervalMs(config.heartbeatIntervalMs())
                .setTaskOffsetIntervalMs(config.taskOffsetIntervalMs());
        if (version == 0) {
            r.setAcceptableRecoveryLagLegacy((int) Math.min(Integer.MAX_VALUE, config.acceptableRecoveryLag()));
        } else {
            r.setAcceptableRecoveryLag(config.acceptableRecoveryLag());
        }
        if (req.memberEpoch() == 0 || StreamsGroupMember.hasAssignedTasksChanged(before, member)) {
            r.setActiveTasks(taskIds(activeOf(member)));
            r.setStandbyTasks(taskIds(member.assignedTasks().standbyTasks()));
            r.setWarmupTasks(taskIds(member.assignedTasks().warmupTasks()));
            if (member.userEndpoint().isPresent()) {
                group.setEndpointInformationEpoch(group.endpointInformationEpoch() + 1);
            }
        }
        if (group.endpointInformationEpoch() != req.endpointInformationEpoch()) {
            List<StreamsGroupHeartbeatResponseData.EndpointToPartitions> endpoints = new ArrayList<>();
            for (StreamsGroupMember m : group.members().values()) {
                EndpointToPartitionsManager.maybeEndpointToPartitions(m, group, image)
                        .ifPresent(endpoints::add);
            }
            r.setPartitionsByUserEndpoint(endpoints);
        }
        r.setEndpointInformationEpoch(group.endpointInformationEpoch());
        configured
                .topicConfigurationException()
                .ifPresent(e -> status.add(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode(e.status().code())
                        .setStatusDetail(e.getMessage())));
        group.getShutdownRequestMemberId()
                .ifPresent(requester -> status.add(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode(StreamsGroupHeartbeatResponse.Status.SHUTDOWN_APPLICATION.code())
                        .setStatusDetail(String.format(
                                "Streams group member %s encountered a fatal error and requested a shutdown for the entire application.",
                                requester))));
        if (!status.isEmpty()) {
            r.setStatus(status);
        }
        return r;
    }

    private static Map<String, java.util.Set<Integer>> activeOf(StreamsGroupMember m) {
        Map<String, java.util.Set<Integer>> out = new HashMap<>();
        m.assignedTasks().activeTasksWithEpochs().forEach((s, ps) -> out.put(s, ps.keySet()));
        return out;
    }

    private static List<StreamsGroupHeartbeatResponseData.TaskIds> taskIds(Map<String, java.util.Set<Integer>> tasks) {
        return tasks.entrySet().stream()
                .map(e -> new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId(e.getKey())
                        .setPartitions(e.getValue().stream().sorted().toList()))
                .collect(Collectors.toList());
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
        cancel(sessions.remove(memberId));
        cancel(revocations.remove(memberId));
        group.removeMember(memberId);
        group.removeTargetAssignment(memberId);
        if (group.getShutdownRequestMemberId().filter(memberId::equals).isPresent() && group.numMembers() == 0) {
            group.setShutdownRequestMemberId(null);
        }
        group.setGroupEpoch(group.groupEpoch() + 1);
    }

    private void resetSession(String memberId) {
        cancel(sessions.remove(memberId));
        sessions.put(
                memberId,
                timer.schedule(() -> sessionExpired(memberId), config.sessionTimeoutMs(), TimeUnit.MILLISECONDS));
    }

    private void scheduleRevocation(StreamsGroupMember m) {
        if (revocations.containsKey(m.memberId())) {
            return;
        }
        revocations.put(
                m.memberId(),
                timer.schedule(() -> revocationTimedOut(m.memberId()), m.rebalanceTimeoutMs(), TimeUnit.MILLISECONDS));
    }

    private synchronized void sessionExpired(String memberId) {
        if (dead || !group.hasMember(memberId)) {
            return;
        }
        LOG.info(
                "streams group {}: member {} session expired after {} ms",
                groupId,
                memberId,
                config.sessionTimeoutMs());
        remove(memberId);
    }

    private synchronized void revocationTimedOut(String memberId) {
        revocations.remove(memberId);
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

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
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

    /** StreamsGroupDescribe, Apache's own rendering of its model. */
    synchronized StreamsGroupDescribeResponseData.DescribedGroup describe() {
        return group.asDescribedGroup(LATEST, ASSIGNOR);
    }

    /** The group is deleted or its coordinator moved: members still heartbeating are told to look again. */
    public synchronized void markDead() {
        dead = true;
        sessions.values().forEach(LiveStreamsGroup::cancel);
        revocations.values().forEach(LiveStreamsGroup::cancel);
        sessions.clear();
        revocations.clear();
    }

    public synchronized boolean isDead() {
        return dead;
    }
}
