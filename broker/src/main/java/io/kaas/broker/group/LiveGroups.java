package io.kaas.broker.group;

import io.kaas.broker.group.streams.LiveStreamsGroup;
import io.kaas.broker.group.streams.StreamsGroups;
import io.kaas.broker.group.streams.StreamsHeartbeat;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntPredicate;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The groups in memory, classic ({@link ClassicGroup}), KIP-848 ({@link ConsumerGroups}) and streams
 * ({@link StreamsGroups}), by id, and which kind a group id is. A group id is one kind at a time: an empty group of one
 * kind becomes another kind when a member of another protocol arrives; a non-empty one refuses it as Apache does
 * (JoinGroup: INCONSISTENT_GROUP_PROTOCOL, ConsumerGroupHeartbeat and StreamsGroupHeartbeat: GROUP_ID_NOT_FOUND).
 *
 * <p>Thread-safe: the maps are concurrent; every change of a group id's kind, and every removal, is decided under one
 * lock ({@code kinds}), taken before any group's monitor.
 */
final class LiveGroups {
    private final ScheduledExecutorService timer;
    private final Map<String, ClassicGroup> classic = new ConcurrentHashMap<>();
    private final ConsumerGroups consumer;
    private final StreamsGroups streams;
    private final Object kinds = new Object();

    LiveGroups(ScheduledExecutorService timer, ConsumerGroups consumer, StreamsGroups streams) {
        this.timer = timer;
        this.consumer = consumer;
        this.streams = streams;
    }

    StreamsGroups streamsGroups() {
        return streams;
    }

    Optional<LiveStreamsGroup> streams(String groupId) {
        return streams.get(groupId);
    }

    /**
     * An empty streams group of {@code groupId} is dropped for a member of another protocol; false when a non-empty
     * one holds the id. Called under {@code kinds}.
     */
    private boolean streamsGroupGiven(String groupId) {
        Optional<LiveStreamsGroup> s = streams.get(groupId);
        if (s.isEmpty()) {
            return true;
        }
        synchronized (s.get()) {
            if (!s.get().isEmpty()) {
                return false;
            }
            streams.remove(s.get());
            return true;
        }
    }

    /**
     * The streams group a StreamsGroupHeartbeat reaches, or its answer: an empty classic or consumer group of that id
     * is dropped for it; a non-empty one refuses it; a member with an epoch but no group is unknown.
     */
    StreamsGroupOrError forStreamsHeartbeat(String groupId, String memberId, int memberEpoch) {
        synchronized (kinds) {
            ClassicGroup c = classic.get(groupId);
            if (c != null) {
                synchronized (c) {
                    if (!c.members.isEmpty()) {
                        return StreamsGroupOrError.error(StreamsHeartbeat.error(
                                Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a streams group."));
                    }
                    c.markDead();
                    classic.remove(groupId, c);
                }
            }
            Optional<ConsumerGroup> k = consumer.get(groupId);
            if (k.isPresent()) {
                synchronized (k.get()) {
                    if (!k.get().isEmpty()) {
                        return StreamsGroupOrError.error(StreamsHeartbeat.error(
                                Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a streams group."));
                    }
                }
                consumer.remove(k.get());
            }
            if (memberEpoch != 0 && streams.get(groupId).isEmpty()) {
                return StreamsGroupOrError.error(StreamsHeartbeat.error(
                        Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + groupId + "."));
            }
            return new StreamsGroupOrError(streams.getOrCreate(groupId), null);
        }
    }

    /** A StreamsGroupHeartbeat's group, or its answer. */
    record StreamsGroupOrError(LiveStreamsGroup group, StreamsHeartbeat error) {
        static StreamsGroupOrError error(StreamsHeartbeat e) {
            return new StreamsGroupOrError(null, e);
        }
    }

    ConsumerGroups consumerGroups() {
        return consumer;
    }

    Optional<ClassicGroup> classic(String groupId) {
        return Optional.ofNullable(classic.get(groupId));
    }

    /** The classic group of {@code groupId}, made (Empty) if there is none. */
    ClassicGroup classicOrNew(String groupId) {
        return classic.computeIfAbsent(groupId, id -> new ClassicGroup(id, timer));
    }

    Optional<ConsumerGroup> consumer(String groupId) {
        return consumer.get(groupId);
    }

    /**
     * The classic group a JoinGroup joins: an empty consumer group of that id is dropped for it; empty when a
     * non-empty consumer group holds the id (mixed groups are not supported).
     */
    Optional<ClassicGroup> forJoin(String groupId) {
        synchronized (kinds) {
            Optional<ConsumerGroup> c = consumer.get(groupId);
            if (c.isPresent()) {
                if (!c.get().isEmpty()) {
                    return Optional.empty();
                }
                consumer.remove(c.get());
            }
            if (!streamsGroupGiven(groupId)) {
                return Optional.empty();
            }
            return Optional.of(classicOrNew(groupId));
        }
    }

    /**
     * The consumer group a ConsumerGroupHeartbeat (member id set) reaches, or the error it is answered: an empty
     * classic group of that id is dropped for it; a non-empty one refuses it; a member with an epoch but no group is
     * unknown.
     */
    ConsumerGroupOrError forHeartbeat(ConsumerGroupHeartbeatRequestData req) {
        synchronized (kinds) {
            ClassicGroup c = classic.get(req.groupId());
            if (c != null) {
                synchronized (c) {
                    if (!c.members.isEmpty()) {
                        return ConsumerGroupOrError.error(ConsumerGroup.error(
                                Errors.GROUP_ID_NOT_FOUND, "Group " + req.groupId() + " is not a consumer group."));
                    }
                    c.markDead();
                    classic.remove(req.groupId(), c);
                }
            }
            if (!streamsGroupGiven(req.groupId())) {
                return ConsumerGroupOrError.error(ConsumerGroup.error(
                        Errors.GROUP_ID_NOT_FOUND, "Group " + req.groupId() + " is not a consumer group."));
            }
            if (req.memberEpoch() != 0 && consumer.get(req.groupId()).isEmpty()) {
                return ConsumerGroupOrError.error(ConsumerGroup.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + req.memberId() + " is not a member of group " + req.groupId()));
            }
            return new ConsumerGroupOrError(consumer.getOrCreate(req.groupId()), null);
        }
    }

    /** A ConsumerGroupHeartbeat's group, or its answer. */
    record ConsumerGroupOrError(ConsumerGroup group, ConsumerGroupHeartbeatResponseData error) {
        static ConsumerGroupOrError error(ConsumerGroupHeartbeatResponseData e) {
            return new ConsumerGroupOrError(null, e);
        }
    }

    /**
     * DeleteGroups of a group in memory: NON_EMPTY_GROUP while it has members; otherwise it is dropped and
     * {@code deleteFiles} runs under its monitor. Null when no group of that id is in memory.
     */
    Errors deleteIfEmpty(String groupId, Runnable deleteFiles) {
        synchronized (kinds) {
            Optional<LiveStreamsGroup> s = streams.get(groupId);
            if (s.isPresent()) {
                synchronized (s.get()) {
                    if (!s.get().isEmpty()) {
                        return Errors.NON_EMPTY_GROUP;
                    }
                    streams.remove(s.get());
                    deleteFiles.run();
                }
                return Errors.NONE;
            }
            Optional<ConsumerGroup> c = consumer.get(groupId);
            if (c.isPresent()) {
                synchronized (c.get()) {
                    if (!c.get().isEmpty()) {
                        return Errors.NON_EMPTY_GROUP;
                    }
                    consumer.remove(c.get());
                    deleteFiles.run();
                }
                return Errors.NONE;
            }
            ClassicGroup g = classic.get(groupId);
            if (g == null) {
                return null;
            }
            synchronized (g) {
                if (!g.members.isEmpty()) {
                    return Errors.NON_EMPTY_GROUP;
                }
                g.markDead();
                classic.remove(groupId, g);
                deleteFiles.run();
            }
            return Errors.NONE;
        }
    }

    /**
     * Drops every group of the slots {@code slots} selects: members waiting in JoinGroup/SyncGroup are answered
     * COORDINATOR_NOT_AVAILABLE and look for the coordinator again; members rejoin, as after a restart.
     */
    void forget(IntPredicate slots) {
        synchronized (kinds) {
            for (Map.Entry<String, ClassicGroup> e : new ArrayList<>(classic.entrySet())) {
                if (slots.test(GroupCoordinator.slotFor(e.getKey()))) {
                    e.getValue().markDead();
                    classic.remove(e.getKey(), e.getValue());
                }
            }
            new ArrayList<>(consumer.all().values())
                    .stream()
                            .filter(g -> slots.test(GroupCoordinator.slotFor(g.groupId)))
                            .forEach(consumer::remove);
            new ArrayList<>(streams.all().values())
                    .stream()
                            .filter(g -> slots.test(GroupCoordinator.slotFor(g.groupId())))
                            .forEach(streams::remove);
        }
    }

    /** The ids of the live groups (a dead classic group, deleted or taken over, is none). */
    Set<String> ids() {
        Set<String> ids = new TreeSet<>();
        classic.forEach((id, g) -> {
            synchronized (g) {
                if (g.state != GroupState.DEAD) {
                    ids.add(id);
                }
            }
        });
        ids.addAll(consumer.all().keySet());
        ids.addAll(streams.all().keySet());
        return ids;
    }

    /** Broker shutdown: every member waiting in JoinGroup/SyncGroup is answered COORDINATOR_NOT_AVAILABLE. */
    void shutdown() {
        classic.values().forEach(ClassicGroup::releaseWaiters);
        consumer.shutdown();
        streams.shutdown();
    }
}
