package io.kaas.broker.share;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ErrorMapping;
import io.kaas.storage.TopicInfo;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share-group offset APIs (Describe/Alter/DeleteShareGroupOffsets, {@code kafka-share-groups.sh}):
 * a share partition's start offset (SPSO) and lag, setting the start of an empty group's partitions,
 * and forgetting a topic's partitions of an empty group. Changes are persisted before they are answered.
 */
public final class ShareGroupOffsets {
    /** A partition's start offset and lag; -1 for both when the group never read it. */
    public record Described(long startOffset, long lag) {}

    private final ShareGroups groups;
    private final TopicCatalog topics;

    public ShareGroupOffsets(ShareGroups groups, TopicCatalog topics) {
        this.groups = groups;
        this.topics = topics;
    }

    /** Whether a share group of that id is known (live, or with stored state). */
    public boolean exists(String groupId) {
        return groups.groupOrStored(groupId).isPresent();
    }

    /** The topic partitions the group has state for. */
    public Map<TopicIdPartition, SharePartition> partitions(String groupId) {
        return groups.groupOrStored(groupId).map(ShareGroup::partitions).orElse(Map.of());
    }

    public Described describe(String groupId, TopicInfo topic, int partition) {
        Optional<ShareGroup> g = groups.groupOrStored(groupId);
        if (g.isEmpty()) {
            return new Described(-1, -1);
        }
        synchronized (g.get()) {
            SharePartition sp = g.get().existingPartition(ShareGroups.key(topic, partition));
            if (sp == null) {
                return new Described(-1, -1);
            }
            long end = topics.partition(topic.name(), partition).state().highWatermark();
            return new Described(sp.startOffset(), Math.max(0, end - sp.startOffset() - sp.doneAheadOfStart()));
        }
    }

    /** Checks that the group may have its offsets changed: it exists and has no members. */
    public Errors mayChange(String groupId) {
        Optional<ShareGroup> g = groups.groupOrStored(groupId);
        if (g.isEmpty()) {
            return Errors.GROUP_ID_NOT_FOUND;
        }
        return g.get().isEmpty() ? Errors.NONE : Errors.NON_EMPTY_GROUP;
    }

    /** Starts the partition over at {@code offset} (an empty group only; see {@link #mayChange}). */
    public Errors alter(String groupId, TopicInfo topic, int partition, long offset) {
        ShareGroup g = groups.groupOrStored(groupId).orElseThrow();
        CompletableFuture<Void> durable;
        synchronized (g) {
            if (!g.isEmpty()) {
                return Errors.NON_EMPTY_GROUP;
            }
            var state = topics.partition(topic.name(), partition).state();
            if (offset < state.logStartOffset() || offset > state.highWatermark()) {
                // Apache clamps nothing: an offset outside the log is refused.
                return Errors.INVALID_REQUEST;
            }
            g.partition(ShareGroups.key(topic, partition), offset).resetTo(offset);
            durable = g.persist();
            g.signalReleased();
        }
        return awaitDurable(durable);
    }

    /** An admin change is answered once durable; it waits on its handler thread (rare, one group commit round). */
    private static Errors awaitDurable(CompletableFuture<Void> durable) {
        try {
            durable.join();
            return Errors.NONE;
        } catch (RuntimeException e) {
            return ErrorMapping.toKafka(e);
        }
    }

    /** Forgets the group's state of every partition of {@code topic} (an empty group only). */
    public Errors delete(String groupId, TopicInfo topic) {
        ShareGroup g = groups.groupOrStored(groupId).orElseThrow();
        CompletableFuture<Void> durable;
        synchronized (g) {
            if (!g.isEmpty()) {
                return Errors.NON_EMPTY_GROUP;
            }
            for (int p = 0; p < topic.partitions(); p++) {
                g.forgetPartition(ShareGroups.key(topic, p));
            }
            durable = g.persist();
        }
        return awaitDurable(durable);
    }
}
