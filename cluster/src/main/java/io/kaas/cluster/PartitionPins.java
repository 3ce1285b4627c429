package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * An operator's pins — a partition moved to a broker and kept there — as both {@code kaas assign} and Apache's
 * AlterPartitionReassignments / ListPartitionReassignments (the {@code kafka-reassign-partitions} tool) make and
 * read them: the one place that writes a pin into the assignment (by compare-and-set, as the controller writes,
 * so neither loses the other's write) and decides whether a move is still under way. The controller keeps a
 * pinned partition on its broker ({@link Assignment#rebalanced}); the brokers hand it over as for any move.
 *
 * <p>A move is <em>in progress</em> while the pinned broker does not hold the partition in the store (the old
 * owner has not let go yet, the new one has not claimed it, or the pinned broker is gone and another serves
 * the partition meanwhile) — what Apache lists as a reassignment not yet complete. Calls block on the store.
 */
public final class PartitionPins {
    private static final int CAS_ATTEMPTS = 20;

    private final ClusterStore store;

    public PartitionPins(ClusterStore store) {
        this.store = store;
    }

    /** A pinned partition its pinned broker does not hold yet: {@code holder} serves it meanwhile, if any. */
    public record Move(TopicPartition tp, int target, OptionalInt holder) {}

    /**
     * Name → partition count of what the controller assigns: the topics, and the coordinator slots under the names of
     * Apache's internal topics ({@link CoordinatorSlots}: {@code __consumer_offsets-N} moves the coordinator of the
     * groups of slot N, {@code __transaction_state-N} that of the transactional ids of slot N).
     */
    public Map<String, Integer> topics() {
        Map<String, Integer> out = new java.util.TreeMap<>(store.topics());
        for (CoordinatorSlots kind : CoordinatorSlots.values()) {
            out.put(kind.topic(), kind.slots());
        }
        return out;
    }

    /** The live brokers' ids (registered under a lease that holds). */
    public Set<Integer> liveBrokers() {
        return store.brokers().keySet();
    }

    /** Why {@code tp} is no partition of {@code topics} (name → count), or null when it is one. */
    public static String missing(TopicPartition tp, Map<String, Integer> topics) {
        Integer count = topics.get(tp.topic());
        if (count == null) {
            return "no topic " + tp.topic() + " in this cluster";
        }
        return tp.partition() < 0 || tp.partition() >= count ? tp.topic() + " has " + count + " partitions" : null;
    }

    /** The assignment as it is now. */
    public Assignment assignment() {
        return store.assignment().value();
    }

    /**
     * Moves {@code partitions} to {@code broker} and pins them there ({@code topics}: their partition counts),
     * in one compare-and-set. Returns the assignment this replaced (who owned them before).
     */
    public Assignment pin(Collection<TopicPartition> partitions, int broker, Map<String, Integer> topics) {
        return change(a -> {
            for (TopicPartition tp : partitions) {
                a = a.pinned(tp, broker, topics.get(tp.topic()));
            }
            return a;
        });
    }

    /** Unpins {@code partitions}: each stays where it is until a rebalance evens the load out. Returns the assignment replaced. */
    public Assignment unpin(Collection<TopicPartition> partitions) {
        return change(a -> {
            for (TopicPartition tp : partitions) {
                a = a.unpinned(tp);
            }
            return a;
        });
    }

    /**
     * Apache's cancel (AlterPartitionReassignments with null replicas): unpins {@code partitions} and, for a move
     * still in progress, gives the partition back to the broker that holds it now (Apache reverts to the
     * original replicas), so it does not move. {@code topics}: their partition counts.
     */
    public Assignment cancel(Collection<TopicPartition> partitions, Map<String, Integer> topics) {
        Map<TopicPartition, OptionalInt> holders = new HashMap<>();
        for (TopicPartition tp : partitions) {
            holders.put(tp, store.holder(tp));
        }
        return change(a -> {
            for (TopicPartition tp : partitions) {
                OptionalInt holder = holders.get(tp);
                if (holder.isPresent() && a.pin(tp).orElse(holder.getAsInt()) != holder.getAsInt()) {
                    a = a.pinned(tp, holder.getAsInt(), topics.get(tp.topic())); // owner back to the holder
                }
                a = a.unpinned(tp);
            }
            return a;
        });
    }

    /** The pinned partitions (of those {@code which} accepts) whose pinned broker does not hold them yet. */
    public List<Move> inProgress(Predicate<TopicPartition> which) {
        List<Move> out = new ArrayList<>();
        store.assignment()
                .value()
                .pins()
                .forEach((topic, pins) -> pins.forEach((partition, broker) -> {
                    TopicPartition tp = new TopicPartition(topic, partition);
                    if (which.test(tp)) {
                        OptionalInt holder = store.holder(tp);
                        if (holder.orElse(Assignment.UNASSIGNED) != broker) {
                            out.add(new Move(tp, broker, holder));
                        }
                    }
                }));
        return out;
    }

    /** Whether {@code broker} holds every one of {@code partitions} now (a takeover finished). */
    public boolean heldBy(Collection<TopicPartition> partitions, int broker) {
        return partitions.stream().allMatch(tp -> store.holder(tp).orElse(Assignment.UNASSIGNED) == broker);
    }

    private Assignment change(UnaryOperator<Assignment> edit) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Versioned<Assignment> current = store.assignment();
            Assignment next = edit.apply(current.value());
            if (next.equals(current.value()) || store.compareAndSetAssignment(current.version(), next)) {
                return current.value();
            }
            // the controller (or another operator) wrote in between: redo on what it wrote
        }
        throw new CoordinationException(
                "the assignment kept changing under " + CAS_ATTEMPTS + " attempts to write it; try again");
    }
}
