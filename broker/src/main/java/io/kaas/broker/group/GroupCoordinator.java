package io.kaas.broker.group;

import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.group.streams.StreamsGroupConfig;
import io.kaas.broker.group.streams.StreamsGroups;
import io.kaas.broker.group.streams.StreamsHeartbeat;
import io.kaas.cluster.CoordinatorSlots;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.GroupOffsetsFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * The group coordinator: what the group APIs ask of it, routed to its parts. Membership lives in memory
 * ({@link LiveGroups}: {@link ClassicGroup}s and KIP-848 {@link ConsumerGroups}, a group id one kind or the other);
 * committed offsets in {@link OffsetStore} files, which survive restarts (members simply rejoin after one), written by
 * {@link GroupOffsetCommits}; ListGroups and the describes by {@link GroupDescriptions}. Thread-safe: each group is
 * its own monitor, and an offset commit validates membership and writes its file under that monitor, so commits
 * cannot race a rebalance.
 *
 * <p><b>Several brokers over one directory</b>: groups are spread over {@value #SLOTS} slots (Apache's
 * {@code __consumer_offsets} partitions, {@link #slotFor}), each coordinated by one broker at a time
 * ({@link SlotOwnership}: the holder the cluster's assignment names, which FindCoordinator answers). A broker sharing
 * its directory ({@link #coordinateWhenTaken}) acts for a group only between {@link #takeCoordination} and
 * {@link #giveUpCoordination} of its slot, and while its self-fence allows; otherwise every request for it answers
 * NOT_COORDINATOR (clients then ask FindCoordinator again) and no offsets file of it is written, so an ex-coordinator
 * a client is still connected to never overwrites what its successor commits.
 */
public final class GroupCoordinator {
    /** The slots groups are spread over (Apache's default {@code offsets.topic.num.partitions}). */
    public static final int SLOTS = CoordinatorSlots.GROUP_SLOTS;

    /** State, protocol type and group type (classic or consumer) as ListGroups reports them. */
    public record Listing(String groupId, String protocolType, String state, String type) {}

    private final OffsetStore offsets;
    private final LiveGroups groups;
    private final SlotOwnership slots;
    private final GroupOffsetCommits commits;
    private final GroupDescriptions descriptions;
    private final GroupConfigs configs;

    public GroupCoordinator(Path clusterDir, ScheduledExecutorService timer) {
        this(clusterDir, timer, ConsumerGroupConfig.defaults(), Map::of);
    }

    /** {@code topics}: every topic by name, now (consumer groups assign their partitions). */
    public GroupCoordinator(
            Path clusterDir,
            ScheduledExecutorService timer,
            ConsumerGroupConfig consumerConfig,
            Supplier<Map<String, TopicInfo>> topics) {
        this(clusterDir, timer, consumerConfig, StreamsGroupConfig.defaults(), topics);
    }

    /** {@code topics}: every topic by name, now (consumer and streams groups assign their partitions). */
    public GroupCoordinator(
            Path clusterDir,
            ScheduledExecutorService timer,
            ConsumerGroupConfig consumerConfig,
            StreamsGroupConfig streamsConfig,
            Supplier<Map<String, TopicInfo>> topics) {
        this.offsets = new OffsetStore(clusterDir);
        this.configs = new GroupConfigs(
                io.kaas.storage.layout.ClusterDir.groupConfigs(clusterDir), new ApacheGroupConfigs(consumerConfig));
        this.groups = new LiveGroups(
                timer,
                new ConsumerGroups(timer, consumerConfig, id -> configs.consumer(id, consumerConfig), topics),
                new StreamsGroups(timer, id -> configs.streams(id, streamsConfig), topics));
        this.slots = new SlotOwnership(CoordinatorSlots.GROUP, new SlotOwnership.SlotState() {
            @Override
            public void load(int slot) {
                // Members known from an earlier term here are dropped (they rejoin, as after a restart), and the
                // slot's groups' offsets, committed and pending, are re-read from the files the predecessor wrote.
                groups.forget(s -> s == slot);
                offsets.reload(g -> slotFor(g) == slot);
            }

            @Override
            public void unload(int slot) {
                // Members waiting in JoinGroup/SyncGroup get COORDINATOR_NOT_AVAILABLE and look again.
                groups.forget(s -> s == slot);
            }
        });
        this.commits = new GroupOffsetCommits(groups, offsets, slots);
        this.descriptions = new GroupDescriptions(groups, offsets, slots);
    }

    /** The configs set on groups (ConfigResource GROUP), which the group protocols read. */
    public GroupConfigs configs() {
        return configs;
    }

    /**
     * This broker shares its directory with others: it coordinates no group until {@link #takeCoordination} of its
     * slot, and acts only while {@code mayAct} (its self-fence) allows.
     */
    public void coordinateWhenTaken(BooleanSupplier mayAct) {
        slots.coordinateWhenTaken(mayAct);
    }

    /**
     * This broker becomes the coordinator of {@code slot}'s groups in coordinator epoch {@code epoch} (before
     * FindCoordinator names it): members known from an earlier term here are dropped and the slot's groups' offsets,
     * committed and pending, are re-read from the files its predecessor wrote.
     */
    public void takeCoordination(int slot, int epoch) {
        slots.gain(slot, epoch);
    }

    /**
     * Another broker coordinates {@code slot}'s groups from now on: answer NOT_COORDINATOR and write no more offsets
     * file of them. Returns once no write of the slot is under way.
     */
    public void giveUpCoordination(int slot) {
        slots.lose(slot);
    }

    /** Whether this broker coordinates {@code groupId} now (and its self-fence allows it to act). */
    public boolean active(String groupId) {
        return slots.activeFor(groupId);
    }

    /**
     * Apache's {@code __consumer_offsets} partition of a group ({@code GroupCoordinatorService.partitionFor}): the
     * slot the transaction markers for the group's pending offsets name.
     */
    public static int slotFor(String groupId) {
        return SlotOwnership.slotFor(CoordinatorSlots.GROUP, groupId);
    }

    public CompletableFuture<JoinGroupResponseData> join(
            JoinGroupRequestData req, short version, String clientId, String host) {
        Errors refused = !active(req.groupId())
                ? Errors.NOT_COORDINATOR
                : req.groupId().isEmpty() ? Errors.INVALID_GROUP_ID : Errors.NONE;
        if (refused != Errors.NONE) {
            return CompletableFuture.completedFuture(new JoinGroupResponseData()
                    .setErrorCode(refused.code())
                    .setMemberId(req.memberId())
                    .setLeader(""));
        }
        Optional<ClassicGroup> g = groups.forJoin(req.groupId());
        if (g.isEmpty()) {
            // Mixed groups (classic members inside a consumer group) are not supported.
            return CompletableFuture.completedFuture(new JoinGroupResponseData()
                    .setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code())
                    .setMemberId(req.memberId())
                    .setLeader("")
                    .setProtocolName(null));
        }
        return g.get().join(req, version, clientId, host);
    }

    /** ConsumerGroupHeartbeat (KIP-848). */
    public ConsumerGroupHeartbeatResponseData consumerHeartbeat(
            ConsumerGroupHeartbeatRequestData req, short version, String clientId, String host) {
        Optional<ConsumerGroupHeartbeatResponseData> invalid =
                groups.consumerGroups().invalid(req, version);
        if (invalid.isPresent()) {
            return invalid.get();
        }
        if (!active(req.groupId())) {
            return ConsumerGroup.error(Errors.NOT_COORDINATOR, null);
        }
        if (req.memberId().isEmpty()) {
            req.setMemberId(Uuid.randomUuid().toString()); // v0: the coordinator names the member
        }
        LiveGroups.ConsumerGroupOrError g = groups.forHeartbeat(req);
        return g.error() != null ? g.error() : g.group().heartbeat(req, clientId, host);
    }

    /**
     * StreamsGroupHeartbeat (KIP-1071): the answer, and the internal topics the group's topology misses, which the
     * caller creates (as Apache's request handler does).
     */
    public StreamsHeartbeat streamsHeartbeat(
            StreamsGroupHeartbeatRequestData req, short version, String clientId, String host) {
        Optional<StreamsHeartbeat> invalid = groups.streamsGroups().invalid(req);
        if (invalid.isPresent()) {
            return invalid.get();
        }
        if (!active(req.groupId())) {
            return StreamsHeartbeat.error(Errors.NOT_COORDINATOR, null);
        }
        LiveGroups.StreamsGroupOrError g = groups.forStreamsHeartbeat(req.groupId(), req.memberId(), req.memberEpoch());
        return g.error() != null
                ? g.error()
                : groups.streamsGroups().heartbeat(g.group(), req, version, clientId, host);
    }

    /**
     * StreamsGroupDescribe for one group: GROUP_ID_NOT_FOUND for unknown groups and groups of another kind; with
     * {@code includeDescription}, the topology description a member pushed.
     */
    public StreamsGroupDescribeResponseData.DescribedGroup streamsDescribe(String groupId, boolean includeDescription) {
        return descriptions.streamsDescribe(groupId, includeDescription);
    }

    /** StreamsGroupTopologyDescriptionUpdate: a member's description of its group's topology, kept with the group. */
    public StreamsGroupTopologyDescriptionUpdateResponseData streamsTopologyDescriptionUpdate(
            StreamsGroupTopologyDescriptionUpdateRequestData req) {
        String invalid = req.memberId() == null || req.memberId().isEmpty()
                ? "MemberId can't be empty."
                : req.groupId() == null || req.groupId().isEmpty()
                        ? "GroupId can't be empty."
                        : req.topologyDescription() == null ? "TopologyDescription can't be null." : null;
        if (invalid != null) {
            return StreamsGroups.answer(new ApiError(Errors.INVALID_REQUEST, invalid));
        }
        if (!active(req.groupId())) {
            return StreamsGroups.answer(new ApiError(Errors.NOT_COORDINATOR, null));
        }
        return groups.streams(req.groupId())
                .map(g -> groups.streamsGroups().updateDescription(g, req))
                .orElseGet(() -> StreamsGroups.answer(new ApiError(
                        Errors.GROUP_ID_NOT_FOUND, "Group " + req.groupId() + " is not a streams group.")));
    }

    /** ConsumerGroupDescribe for one group: GROUP_ID_NOT_FOUND for unknown and classic groups, as Apache. */
    public ConsumerGroupDescribeResponseData.DescribedGroup consumerDescribe(String groupId, short version) {
        return descriptions.consumerDescribe(groupId, version);
    }

    /**
     * OffsetFetch: NOT_COORDINATOR unless this broker coordinates the groups; v9+ from a consumer-group member: its
     * epoch must be current (KIP-848). NONE for classic groups.
     */
    public Errors validateOffsetFetch(String groupId, String memberId, int memberEpoch) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Optional<io.kaas.broker.group.streams.LiveStreamsGroup> streams = groups.streams(groupId);
        if (streams.isPresent()) {
            return streams.get().validateFetch(memberId, memberEpoch);
        }
        return groups.consumer(groupId)
                .map(g -> g.validateFetch(memberId, memberEpoch))
                .orElse(Errors.NONE);
    }

    public CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req) {
        if (!active(req.groupId())) {
            return CompletableFuture.completedFuture(
                    new SyncGroupResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        }
        return groups.classic(req.groupId())
                .map(g -> g.sync(req))
                .orElseGet(() -> CompletableFuture.completedFuture(
                        new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())));
    }

    public Errors heartbeat(String groupId, String memberId, String instanceId, int generation) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        return groups.classic(groupId)
                .map(g -> g.heartbeat(memberId, instanceId, generation))
                .orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    public Errors leave(String groupId, String memberId, String instanceId) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        return groups.classic(groupId).map(g -> g.leave(memberId, instanceId)).orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    /**
     * Validates the committer's membership, then stores and durably writes the offsets. Returns the error
     * for every partition (NONE when written).
     */
    public Errors commit(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            List<GroupOffsetsFile.Committed> commits) {
        return this.commits.commit(groupId, memberId, instanceId, generation, commits);
    }

    /**
     * TxnOffsetCommit, once the transaction coordinator confirmed the group's slot is in the producer's transaction:
     * the member check, then the offsets staged as the producer's pending offsets, durably, before the answer
     * ({@link GroupOffsetCommits#stageTransactional}). They reach the committed offsets only with the transaction's
     * COMMIT marker ({@link #completeTransaction}).
     */
    public Errors stageTransactional(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            long producerId,
            short producerEpoch,
            List<GroupOffsetsFile.Committed> commits) {
        return this.commits.stageTransactional(
                groupId, memberId, instanceId, generation, producerId, producerEpoch, commits);
    }

    /**
     * A transaction marker for slot {@code slot} (WriteTxnMarkers naming {@code __consumer_offsets}, or the local
     * coordinator's own call): every group of the slot with offsets pending from {@code producerId} commits them
     * ({@code commit}) or drops them. Idempotent: a retried marker finds nothing pending. NOT_COORDINATOR unless
     * this broker coordinates the slot now.
     */
    public Errors completeTransaction(int slot, long producerId, boolean commit) {
        return commits.completeTransaction(slot, producerId, commit);
    }

    /**
     * Whether an open transaction has staged an offset for this group and partition: OffsetFetch with require_stable
     * (KIP-447) then answers UNSTABLE_OFFSET_COMMIT, so a consumer taking the partition over waits for the transaction
     * to end instead of starting from an offset about to change.
     */
    public boolean hasPendingOffset(String groupId, String topic, int partition) {
        return offsets.hasPending(groupId, topic, partition);
    }

    /**
     * Offsets a transaction record written by an earlier kaas staged in the transaction coordinator's slot file:
     * stored and durably written when that transaction commits (no membership check, it was done when staged).
     */
    public void commitTransactional(String groupId, List<GroupOffsetsFile.Committed> commits) {
        offsets.commit(groupId, commits);
    }

    public Map<OffsetStore.PartitionKey, GroupOffsetsFile.Committed> committed(String groupId) {
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
        return descriptions.groupIds();
    }

    /** ListGroups: the groups this broker coordinates (those of its slots), as each Apache broker answers. */
    public List<Listing> list() {
        return descriptions.list();
    }

    /** DescribeGroups for one group; empty when the group is unknown. */
    public Optional<DescribeGroupsResponseData.DescribedGroup> describe(String groupId) {
        return descriptions.describe(groupId);
    }

    /** DeleteGroups: only groups without members; removes the offsets file. */
    public Errors deleteGroup(String groupId) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Errors inMemory = groups.deleteIfEmpty(groupId, () -> offsets.deleteGroup(groupId));
        if (inMemory != null) {
            return inMemory;
        }
        if (!offsets.groups().contains(groupId)) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        offsets.deleteGroup(groupId);
        return Errors.NONE;
    }

    /** OffsetDelete: group-level error, or per-partition deletion refusing topics members subscribe to. */
    public Errors deleteOffsets(
            String groupId, List<OffsetStore.PartitionKey> partitions, Map<OffsetStore.PartitionKey, Errors> results) {
        return commits.deleteOffsets(groupId, partitions, results);
    }

    /** Broker shutdown: every member waiting in JoinGroup/SyncGroup is answered COORDINATOR_NOT_AVAILABLE (retriable). */
    public void shutdown() {
        groups.shutdown();
    }
}
