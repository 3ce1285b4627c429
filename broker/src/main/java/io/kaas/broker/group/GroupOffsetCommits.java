package io.kaas.broker.group;

import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.group.streams.LiveStreamsGroup;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * The writes of a group's offsets file: OffsetCommit, TxnOffsetCommit (staged, pending until the transaction's marker),
 * the markers themselves, OffsetDelete. Each validates the committer against the group's membership and writes under
 * the group's monitor, so a commit cannot race a rebalance; and each write is made inside a hold of the group's slot
 * ({@link SlotOwnership#whileActive}), so a slot given up is written no more.
 *
 * <p>Thread-safe: lock order is the group's monitor, then the slot's hold, then the file's lock in {@link OffsetStore}.
 */
final class GroupOffsetCommits {
    /** The OffsetCommit version streams-group commits are checked as (any version is accepted). */
    private static final short COMMIT_VERSION = 9;

    private final LiveGroups groups;
    private final OffsetStore offsets;
    private final SlotOwnership slots;

    GroupOffsetCommits(LiveGroups groups, OffsetStore offsets, SlotOwnership slots) {
        this.groups = groups;
        this.offsets = offsets;
        this.slots = slots;
    }

    /** Validates the committer's membership, then stores and durably writes the offsets; NONE when written. */
    Errors commit(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            List<GroupOffsetsFile.Committed> commits) {
        if (groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!slots.activeFor(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Optional<LiveStreamsGroup> streams = groups.streams(groupId);
        if (streams.isPresent()) {
            synchronized (streams.get()) {
                Errors e = validateStreamsCommit(streams.get(), memberId, instanceId, generation, false, commits);
                return e == Errors.NONE && !commits.isEmpty() && !write(groupId, () -> offsets.commit(groupId, commits))
                        ? Errors.NOT_COORDINATOR
                        : e;
            }
        }
        Optional<ConsumerGroup> consumer = groups.consumer(groupId);
        Object lock = consumer.isPresent() ? consumer.get() : groups.classicOrNew(groupId);
        synchronized (lock) {
            if (!slots.activeFor(groupId)) {
                return Errors.NOT_COORDINATOR; // again right before the write: the coordinator may have moved
            }
            Errors e = consumer.isPresent()
                    ? consumer.get().validateCommit(memberId, generation)
                    : ((ClassicGroup) lock).validateCommit(memberId, instanceId, generation);
            return e == Errors.NONE && !commits.isEmpty() && !write(groupId, () -> offsets.commit(groupId, commits))
                    ? Errors.NOT_COORDINATOR
                    : e;
        }
    }

    /** Apache's streams-group commit check (member epoch, owned tasks) over the partitions {@code commits} name. */
    private static Errors validateStreamsCommit(
            LiveStreamsGroup group,
            String memberId,
            String instanceId,
            int generation,
            boolean transactional,
            List<GroupOffsetsFile.Committed> commits) {
        return group.validateCommit(
                memberId,
                instanceId,
                generation,
                transactional,
                COMMIT_VERSION,
                commits.stream().map(GroupOffsetsFile.Committed::topic).toList(),
                commits.stream().map(GroupOffsetsFile.Committed::partition).toList());
    }

    /**
     * TxnOffsetCommit, once the transaction coordinator confirmed the group's slot is in the producer's transaction:
     * the member check (KIP-447: a zombie of an old generation is refused; a commit without group metadata,
     * generation -1 and no member id, is accepted for any group, as Apache does), then the offsets are staged as
     * the producer's pending offsets, durably, before the answer. They reach the committed offsets only with the
     * transaction's COMMIT marker ({@link #completeTransaction}).
     */
    Errors stageTransactional(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            long producerId,
            short producerEpoch,
            List<GroupOffsetsFile.Committed> commits) {
        if (groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!slots.activeFor(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        boolean unchecked = generation < 0 && (memberId == null || memberId.isEmpty());
        Optional<LiveStreamsGroup> streams = groups.streams(groupId);
        if (streams.isPresent()) {
            synchronized (streams.get()) {
                Errors e = unchecked
                        ? Errors.NONE
                        : validateStreamsCommit(streams.get(), memberId, instanceId, generation, true, commits);
                if (e == Errors.NONE
                        && !commits.isEmpty()
                        && !write(groupId, () -> offsets.stagePending(groupId, producerId, producerEpoch, commits))) {
                    return Errors.NOT_COORDINATOR;
                }
                return e;
            }
        }
        Optional<ConsumerGroup> consumer = groups.consumer(groupId);
        Object lock = consumer.isPresent() ? consumer.get() : groups.classicOrNew(groupId);
        synchronized (lock) {
            if (!slots.activeFor(groupId)) {
                return Errors.NOT_COORDINATOR;
            }
            Errors e = unchecked
                    ? Errors.NONE
                    : consumer.isPresent()
                            ? consumer.get().validateCommit(memberId, generation)
                            : ((ClassicGroup) lock).validateCommit(memberId, instanceId, generation);
            if (e == Errors.NONE
                    && !commits.isEmpty()
                    && !write(groupId, () -> offsets.stagePending(groupId, producerId, producerEpoch, commits))) {
                return Errors.NOT_COORDINATOR;
            }
            return e;
        }
    }

    /**
     * A transaction marker for slot {@code slot}: every group of the slot with offsets pending from {@code producerId}
     * commits them ({@code commit}) or drops them. Idempotent: a retried marker finds nothing pending.
     */
    Errors completeTransaction(int slot, long producerId, boolean commit) {
        if (slot < 0 || slot >= GroupCoordinator.SLOTS) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!slots.active(slot)) {
            return Errors.NOT_COORDINATOR;
        }
        for (String groupId : List.copyOf(offsets.groups())) {
            if (GroupCoordinator.slotFor(groupId) != slot
                    || !offsets.pendingProducers(groupId).contains(producerId)) {
                continue;
            }
            // Checked again for each write: the slot may have moved meanwhile.
            if (!write(groupId, () -> offsets.completePending(groupId, producerId, commit))) {
                return Errors.NOT_COORDINATOR;
            }
        }
        return Errors.NONE;
    }

    /** OffsetDelete: group-level error, or per-partition deletion refusing topics members subscribe to. */
    Errors deleteOffsets(
            String groupId, List<OffsetStore.PartitionKey> partitions, Map<OffsetStore.PartitionKey, Errors> results) {
        if (!slots.activeFor(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        Optional<ClassicGroup> g = groups.classic(groupId);
        Optional<ConsumerGroup> consumer = groups.consumer(groupId);
        Optional<LiveStreamsGroup> streams = groups.streams(groupId);
        if (g.isEmpty()
                && consumer.isEmpty()
                && streams.isEmpty()
                && !offsets.groups().contains(groupId)) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        Object lock = streams.isPresent()
                ? streams.get()
                : consumer.isPresent() ? consumer.get() : g.isPresent() ? g.get() : this;
        synchronized (lock) {
            Set<String> subscribed = consumer.isPresent()
                    ? consumer.get().subscribedTopics()
                    : g.isPresent() ? g.get().subscribedTopics() : Set.of();
            List<OffsetStore.PartitionKey> deletable = new ArrayList<>();
            for (OffsetStore.PartitionKey k : partitions) {
                if (subscribed.contains(k.topic())
                        || streams.map(s -> s.readsTopic(k.topic())).orElse(false)) {
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

    /** Runs {@code write} (a change of {@code groupId}'s file) only inside a hold of its slot; false if not coordinated. */
    private boolean write(String groupId, Runnable write) {
        return slots.whileActive(GroupCoordinator.slotFor(groupId), write);
    }
}
