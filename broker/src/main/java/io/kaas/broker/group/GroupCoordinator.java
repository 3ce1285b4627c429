package io.kaas.broker.group;

import io.kaas.cluster.CoordinatorSlots;
import io.kaas.storage.TopicInfo;
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
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * The classic group coordinator for every group (this broker coordinates them all). Membership lives in
 * memory ({@link ClassicGroup}); committed offsets in {@link OffsetStore} files, which survive restarts
 * (members simply rejoin after one). Thread-safe: each group is its own monitor, and an offset commit
 * validates membership and writes its file under that monitor, so commits cannot race a rebalance.
 *
 * <p>KIP-848 consumer groups ({@link ConsumerGroups}) live beside classic ones: a group id is one kind or
 * the other. An empty group of one kind becomes the other kind when a member of the other protocol
 * arrives; a non-empty one refuses it as Apache does (JoinGroup: INCONSISTENT_GROUP_PROTOCOL,
 * ConsumerGroupHeartbeat: GROUP_ID_NOT_FOUND). Kind changes are decided under {@code kinds}.
 *
 * <p><b>Several brokers over one directory</b>: groups are spread over {@value #SLOTS} slots (Apache's
 * {@code __consumer_offsets} partitions, {@link #slotFor}), each coordinated by one broker at a time (the holder the
 * cluster's assignment names, which FindCoordinator answers). A broker sharing its directory
 * ({@link #coordinateWhenTaken}) acts for a group only between {@link #takeCoordination} and
 * {@link #giveUpCoordination} of its slot, and while its self-fence allows; otherwise every request for it answers
 * NOT_COORDINATOR (clients then ask FindCoordinator again) and no offsets file of it is written, so an ex-coordinator
 * a client is still connected to never overwrites what its successor commits. Giving a slot up waits for the writes
 * under way in it ({@link #slotGuards}), so the successor, which claims the slot only after that, loads them all.
 */
public final class GroupCoordinator {
    /** The slots groups are spread over (Apache's default {@code offsets.topic.num.partitions}). */
    public static final int SLOTS = CoordinatorSlots.GROUP_SLOTS;

    private final ScheduledExecutorService timer;
    private final OffsetStore offsets;
    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    private final ConsumerGroups consumerGroups;
    private final Object kinds = new Object();
    /** Whether this broker coordinates every group (on its own); with others, only the slots in {@link #slots}. */
    private volatile boolean coordinatingAll = true;
    /** The slots this broker coordinates (several brokers over one directory), with the coordinator epoch it won. */
    private final Map<Integer, Integer> slots = new ConcurrentHashMap<>();
    /**
     * Per slot: a write of a group's file holds the read side (and checks the slot is still coordinated here);
     * giving the slot up takes the write side, so it returns only once no write of the slot is under way.
     */
    private final ReentrantReadWriteLock[] slotGuards = new ReentrantReadWriteLock[SLOTS];
    /** The self-fence of a broker sharing its directory (always true on its own). */
    private volatile BooleanSupplier mayAct = () -> true;

    public GroupCoordinator(Path clusterDir, ScheduledExecutorService timer) {
        this(clusterDir, timer, ConsumerGroupConfig.defaults(), Map::of);
    }

    /** {@code topics}: every topic by name, now (consumer groups assign their partitions). */
    public GroupCoordinator(
            Path clusterDir,
            ScheduledExecutorService timer,
            ConsumerGroupConfig consumerConfig,
            Supplier<Map<String, TopicInfo>> topics) {
        this.timer = timer;
        this.offsets = new OffsetStore(clusterDir);
        this.consumerGroups = new ConsumerGroups(timer, consumerConfig, topics);
        for (int i = 0; i < SLOTS; i++) {
            slotGuards[i] = new ReentrantReadWriteLock();
        }
    }

    /**
     * This broker shares its directory with others: it coordinates no group until {@link #takeCoordination} of its
     * slot, and acts only while {@code mayAct} (its self-fence) allows.
     */
    public void coordinateWhenTaken(BooleanSupplier mayAct) {
        this.mayAct = mayAct;
        this.coordinatingAll = false;
    }

    /**
     * This broker becomes the coordinator of {@code slot}'s groups in coordinator epoch {@code epoch} (before
     * FindCoordinator names it): members known from an earlier term here are dropped (they rejoin, as after a
     * restart) and the slot's groups' offsets, committed and pending, are re-read from the files its predecessor wrote.
     */
    public void takeCoordination(int slot, int epoch) {
        forgetMembers(slot);
        offsets.reload(g -> slotFor(g) == slot);
        slots.put(slot, epoch);
    }

    /**
     * Another broker coordinates {@code slot}'s groups from now on: answer NOT_COORDINATOR and write no more offsets
     * file of them. Returns once no write of the slot is under way.
     */
    public void giveUpCoordination(int slot) {
        slotGuards[slot].writeLock().lock();
        try {
            slots.remove(slot);
        } finally {
            slotGuards[slot].writeLock().unlock();
        }
        forgetMembers(slot); // members waiting in JoinGroup/SyncGroup get COORDINATOR_NOT_AVAILABLE and look again
    }

    /** Whether this broker coordinates {@code groupId} now (and its self-fence allows it to act). */
    public boolean active(String groupId) {
        return (coordinatingAll || slots.containsKey(slotFor(groupId))) && mayAct.getAsBoolean();
    }

    /**
     * Runs {@code write} (a change of {@code groupId}'s file) only while this broker coordinates the group: the slot
     * cannot be given up meanwhile. False, without running it, when it does not coordinate it (NOT_COORDINATOR).
     */
    private boolean whileCoordinating(String groupId, Runnable write) {
        ReentrantReadWriteLock.ReadLock guard = slotGuards[slotFor(groupId)].readLock();
        guard.lock();
        try {
            if (!active(groupId)) {
                return false;
            }
            write.run();
            return true;
        } finally {
            guard.unlock();
        }
    }

    private void forgetMembers(int slot) {
        synchronized (kinds) {
            for (Map.Entry<String, ClassicGroup> e : new ArrayList<>(groups.entrySet())) {
                if (slotFor(e.getKey()) == slot) {
                    e.getValue().markDead();
                    groups.remove(e.getKey(), e.getValue());
                }
            }
            new ArrayList<>(consumerGroups.all().values())
                    .stream().filter(g -> slotFor(g.groupId) == slot).forEach(consumerGroups::remove);
        }
    }

    private ClassicGroup group(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, timer));
    }

    private Optional<ClassicGroup> existing(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    public CompletableFuture<JoinGroupResponseData> join(
            JoinGroupRequestData req, short version, String clientId, String host) {
        if (!active(req.groupId())) {
            return CompletableFuture.completedFuture(new JoinGroupResponseData()
                    .setErrorCode(Errors.NOT_COORDINATOR.code())
                    .setMemberId(req.memberId())
                    .setLeader(""));
        }
        if (req.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(new JoinGroupResponseData()
                    .setErrorCode(Errors.INVALID_GROUP_ID.code())
                    .setMemberId(req.memberId())
                    .setLeader(""));
        }
        ClassicGroup g;
        synchronized (kinds) {
            Optional<ConsumerGroup> consumer = consumerGroups.get(req.groupId());
            if (consumer.isPresent()) {
                if (!consumer.get().isEmpty()) {
                    // Mixed groups (classic members inside a consumer group) are not supported.
                    return CompletableFuture.completedFuture(new JoinGroupResponseData()
                            .setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code())
                            .setMemberId(req.memberId())
                            .setLeader("")
                            .setProtocolName(null));
                }
                consumerGroups.remove(consumer.get());
            }
            g = group(req.groupId());
        }
        return g.join(req, version, clientId, host);
    }

    /** ConsumerGroupHeartbeat (KIP-848). */
    public ConsumerGroupHeartbeatResponseData consumerHeartbeat(
            ConsumerGroupHeartbeatRequestData req, short version, String clientId, String host) {
        Optional<ConsumerGroupHeartbeatResponseData> invalid = consumerGroups.invalid(req, version);
        if (invalid.isPresent()) {
            return invalid.get();
        }
        if (!active(req.groupId())) {
            return ConsumerGroup.error(Errors.NOT_COORDINATOR, null);
        }
        if (req.memberId().isEmpty()) {
            req.setMemberId(Uuid.randomUuid().toString()); // v0: the coordinator names the member
        }
        ConsumerGroup g;
        synchronized (kinds) {
            ClassicGroup classic = groups.get(req.groupId());
            if (classic != null) {
                synchronized (classic) {
                    if (!classic.members.isEmpty()) {
                        return ConsumerGroup.error(
                                Errors.GROUP_ID_NOT_FOUND, "Group " + req.groupId() + " is not a consumer group.");
                    }
                    classic.markDead();
                    groups.remove(req.groupId(), classic);
                }
            }
            if (req.memberEpoch() != 0 && consumerGroups.get(req.groupId()).isEmpty()) {
                return ConsumerGroup.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + req.memberId() + " is not a member of group " + req.groupId());
            }
            g = consumerGroups.getOrCreate(req.groupId());
        }
        return g.heartbeat(req, clientId, host);
    }

    /** ConsumerGroupDescribe for one group: GROUP_ID_NOT_FOUND for unknown and classic groups, as Apache. */
    public ConsumerGroupDescribeResponseData.DescribedGroup consumerDescribe(String groupId, short version) {
        if (!active(groupId)) {
            return new ConsumerGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setErrorCode(Errors.NOT_COORDINATOR.code());
        }
        Optional<ConsumerGroup> g = consumerGroups.get(groupId);
        if (g.isPresent()) {
            return consumerGroups.describe(g.get(), version);
        }
        boolean classic = groups.containsKey(groupId) || offsets.groups().contains(groupId);
        return new ConsumerGroupDescribeResponseData.DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                .setErrorMessage(
                        classic
                                ? "Group " + groupId + " is not a consumer group."
                                : "Group " + groupId + " not found.");
    }

    /**
     * OffsetFetch: NOT_COORDINATOR unless this broker coordinates the groups; v9+ from a consumer-group member: its
     * epoch must be current (KIP-848). NONE for classic groups.
     */
    public Errors validateOffsetFetch(String groupId, String memberId, int memberEpoch) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        return consumerGroups
                .get(groupId)
                .map(g -> g.validateFetch(memberId, memberEpoch))
                .orElse(Errors.NONE);
    }

    public CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req) {
        if (!active(req.groupId())) {
            return CompletableFuture.completedFuture(
                    new SyncGroupResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        }
        return existing(req.groupId())
                .map(g -> g.sync(req))
                .orElseGet(() -> CompletableFuture.completedFuture(
                        new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())));
    }

    public Errors heartbeat(String groupId, String memberId, String instanceId, int generation) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        return existing(groupId)
                .map(g -> g.heartbeat(memberId, instanceId, generation))
                .orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    public Errors leave(String groupId, String memberId, String instanceId) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        return existing(groupId).map(g -> g.leave(memberId, instanceId)).orElse(Errors.UNKNOWN_MEMBER_ID);
    }

    /**
     * Validates the committer's membership, then stores and durably writes the offsets. Returns the error
     * for every partition (NONE when written).
     */
    public Errors commit(
            String groupId, String memberId, String instanceId, int generation, List<OffsetStore.Committed> commits) {
        if (groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Optional<ConsumerGroup> consumer = consumerGroups.get(groupId);
        if (consumer.isPresent()) {
            synchronized (consumer.get()) {
                if (!active(groupId)) {
                    return Errors
                            .NOT_COORDINATOR; // checked again right before the write: the coordinator may have moved
                }
                Errors e = consumer.get().validateCommit(memberId, generation);
                if (e == Errors.NONE
                        && !commits.isEmpty()
                        && !whileCoordinating(groupId, () -> offsets.commit(groupId, commits))) {
                    return Errors.NOT_COORDINATOR;
                }
                return e;
            }
        }
        ClassicGroup g = group(groupId);
        synchronized (g) {
            if (!active(groupId)) {
                return Errors.NOT_COORDINATOR;
            }
            Errors e = g.validateCommit(memberId, instanceId, generation);
            if (e == Errors.NONE
                    && !commits.isEmpty()
                    && !whileCoordinating(groupId, () -> offsets.commit(groupId, commits))) {
                return Errors.NOT_COORDINATOR;
            }
            return e;
        }
    }

    /**
     * Apache's {@code __consumer_offsets} partition of a group ({@code GroupCoordinatorService.partitionFor}): the
     * slot the transaction markers for the group's pending offsets name.
     */
    public static int slotFor(String groupId) {
        return Utils.abs(groupId.hashCode()) % SLOTS;
    }

    /**
     * TxnOffsetCommit, once the transaction coordinator confirmed the group's slot is in the producer's transaction:
     * the member check (KIP-447: a zombie of an old generation is refused; a commit without group metadata,
     * generation -1 and no member id, is accepted for any group, as Apache does), then the offsets are staged as
     * the producer's pending offsets, durably, before the answer. They reach the committed offsets only with the
     * transaction's COMMIT marker ({@link #completeTransaction}).
     */
    public Errors stageTransactional(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            long producerId,
            short producerEpoch,
            List<OffsetStore.Committed> commits) {
        if (groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        boolean unchecked = generation < 0 && (memberId == null || memberId.isEmpty());
        Optional<ConsumerGroup> consumer = consumerGroups.get(groupId);
        Object lock = consumer.isPresent() ? consumer.get() : group(groupId);
        synchronized (lock) {
            if (!active(groupId)) {
                return Errors.NOT_COORDINATOR;
            }
            Errors e = unchecked
                    ? Errors.NONE
                    : consumer.isPresent()
                            ? consumer.get().validateCommit(memberId, generation)
                            : ((ClassicGroup) lock).validateCommit(memberId, instanceId, generation);
            if (e == Errors.NONE
                    && !commits.isEmpty()
                    && !whileCoordinating(
                            groupId, () -> offsets.stagePending(groupId, producerId, producerEpoch, commits))) {
                return Errors.NOT_COORDINATOR;
            }
            return e;
        }
    }

    /**
     * A transaction marker for slot {@code slot} (WriteTxnMarkers naming {@code __consumer_offsets}, or the local
     * coordinator's own call): every group of the slot with offsets pending from {@code producerId} commits them
     * ({@code commit}) or drops them. Idempotent: a retried marker finds nothing pending. NOT_COORDINATOR unless
     * this broker coordinates the slot now.
     */
    public Errors completeTransaction(int slot, long producerId, boolean commit) {
        if (slot < 0 || slot >= SLOTS) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!((coordinatingAll || slots.containsKey(slot)) && mayAct.getAsBoolean())) {
            return Errors.NOT_COORDINATOR;
        }
        for (String groupId : List.copyOf(offsets.groups())) {
            if (slotFor(groupId) != slot || !offsets.pendingProducers(groupId).contains(producerId)) {
                continue;
            }
            // Checked again for each write: the slot may have moved meanwhile.
            if (!whileCoordinating(groupId, () -> offsets.completePending(groupId, producerId, commit))) {
                return Errors.NOT_COORDINATOR;
            }
        }
        return Errors.NONE;
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
    public void commitTransactional(String groupId, List<OffsetStore.Committed> commits) {
        offsets.commit(groupId, commits);
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
        ids.addAll(consumerGroups.all().keySet());
        return ids;
    }

    /** State, protocol type and group type (classic or consumer) as ListGroups reports them; offsets-only groups are Empty classic groups with no protocol. */
    public record Listing(String groupId, String protocolType, String state, String type) {}

    /** ListGroups: the groups this broker coordinates (those of its slots), as each Apache broker answers. */
    public List<Listing> list() {
        List<Listing> out = new ArrayList<>();
        for (String id : groupIds()) {
            if (!active(id)) {
                continue;
            }
            ClassicGroup g = groups.get(id);
            Optional<ConsumerGroup> consumer = consumerGroups.get(id);
            if (consumer.isPresent()) {
                out.add(new Listing(id, "consumer", consumer.get().stateName(), "consumer"));
            } else if (g == null) {
                out.add(new Listing(id, "", GroupState.EMPTY.wireName(), "classic"));
            } else {
                synchronized (g) {
                    out.add(new Listing(
                            id, g.protocolType == null ? "" : g.protocolType, g.state.wireName(), "classic"));
                }
            }
        }
        return out;
    }

    /** DescribeGroups for one group; empty when the group is unknown. */
    public Optional<DescribeGroupsResponseData.DescribedGroup> describe(String groupId) {
        if (!active(groupId)) {
            return Optional.of(new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState("")
                    .setProtocolType("")
                    .setProtocolData("")
                    .setErrorCode(Errors.NOT_COORDINATOR.code()));
        }
        if (consumerGroups.get(groupId).isPresent()) {
            // As Apache 4.x: DescribeGroups describes classic groups only; ConsumerGroupDescribe the others.
            return Optional.of(new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState("Dead")
                    .setProtocolType("")
                    .setProtocolData("")
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " is not a classic group."));
        }
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            return offsets.groups().contains(groupId)
                    ? Optional.of(new DescribeGroupsResponseData.DescribedGroup()
                            .setGroupId(groupId)
                            .setGroupState(GroupState.EMPTY.wireName())
                            .setProtocolType("")
                            .setProtocolData(""))
                    : Optional.empty();
        }
        synchronized (g) {
            if (g.state == GroupState.DEAD) {
                return Optional.empty();
            }
            DescribeGroupsResponseData.DescribedGroup d = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState(g.state.wireName())
                    .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                    .setProtocolData(g.state == GroupState.STABLE && g.protocolName != null ? g.protocolName : "");
            boolean stable = g.state == GroupState.STABLE;
            for (Member m : g.members.values()) {
                d.members()
                        .add(new DescribeGroupsResponseData.DescribedGroupMember()
                                .setMemberId(m.memberId)
                                .setGroupInstanceId(m.groupInstanceId)
                                .setClientId(m.clientId)
                                .setClientHost(m.clientHost)
                                .setMemberMetadata(
                                        stable && g.protocolName != null
                                                ? m.protocols.getOrDefault(g.protocolName, new byte[0])
                                                : new byte[0])
                                .setMemberAssignment(stable ? m.assignment : new byte[0]));
            }
            return Optional.of(d);
        }
    }

    /** DeleteGroups: only groups without members; removes the offsets file. */
    public Errors deleteGroup(String groupId) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Optional<ConsumerGroup> consumer = consumerGroups.get(groupId);
        if (consumer.isPresent()) {
            synchronized (kinds) {
                synchronized (consumer.get()) {
                    if (!consumer.get().isEmpty()) {
                        return Errors.NON_EMPTY_GROUP;
                    }
                    consumerGroups.remove(consumer.get());
                    offsets.deleteGroup(groupId);
                }
            }
            return Errors.NONE;
        }
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
    public Errors deleteOffsets(
            String groupId, List<OffsetStore.PartitionKey> partitions, Map<OffsetStore.PartitionKey, Errors> results) {
        if (!active(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        ClassicGroup g = groups.get(groupId);
        Optional<ConsumerGroup> consumer = consumerGroups.get(groupId);
        if (g == null && consumer.isEmpty() && !offsets.groups().contains(groupId)) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        Object lock = consumer.isPresent() ? consumer.get() : g != null ? g : this;
        synchronized (lock) {
            Set<String> subscribed = consumer.isPresent()
                    ? consumer.get().subscribedTopics()
                    : g != null ? g.subscribedTopics() : Set.of();
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
        consumerGroups.shutdown();
    }
}
