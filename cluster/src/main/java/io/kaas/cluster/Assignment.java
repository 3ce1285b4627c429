package io.kaas.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which broker owns each partition: topic → owner id per partition index ({@link #UNASSIGNED} for none),
 * and the partitions an operator pinned to a broker ({@code kaas assign}): topic → partition → broker.
 * Immutable; the controller computes the next one with {@link #rebalanced} and writes it by compare-and-set,
 * and so does {@code kaas assign}, so neither can lose the other's write.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Assignment(
        @JsonProperty("owners") Map<String, List<Integer>> owners,

        @JsonProperty("pins") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        Map<String, Map<Integer, Integer>> pins) {
    public static final int UNASSIGNED = -1;
    public static final Assignment EMPTY = new Assignment(Map.of());

    @JsonCreator
    public Assignment {
        Map<String, List<Integer>> copy = new TreeMap<>();
        if (owners != null) {
            owners.forEach((t, o) -> copy.put(t, List.copyOf(o)));
        }
        owners = Map.copyOf(copy);
        TreeMap<String, Map<Integer, Integer>> pinCopy = new TreeMap<>();
        if (pins != null) {
            pins.forEach((t, p) -> {
                if (!p.isEmpty()) {
                    pinCopy.put(t, java.util.Collections.unmodifiableSortedMap(new TreeMap<>(p)));
                }
            });
        }
        pins = java.util.Collections.unmodifiableSortedMap(pinCopy);
    }

    /** Owners only, nothing pinned. */
    public Assignment(Map<String, List<Integer>> owners) {
        this(owners, Map.of());
    }

    /** The broker an operator pinned {@code tp} to, if any. */
    public OptionalInt pin(TopicPartition tp) {
        Integer b = pins.getOrDefault(tp.topic(), Map.of()).get(tp.partition());
        return b == null ? OptionalInt.empty() : OptionalInt.of(b);
    }

    /**
     * {@code tp} owned by and pinned to {@code broker} ({@code partitions}: the topic's partition count, which
     * the owner list grows to). Rebalancing keeps it there while that broker is live.
     */
    public Assignment pinned(TopicPartition tp, int broker, int partitions) {
        Map<String, List<Integer>> o = new TreeMap<>(owners);
        List<Integer> list = new ArrayList<>(o.getOrDefault(tp.topic(), List.of()));
        while (list.size() < Math.max(partitions, tp.partition() + 1)) {
            list.add(UNASSIGNED);
        }
        list.set(tp.partition(), broker);
        o.put(tp.topic(), list);
        Map<String, Map<Integer, Integer>> p = new TreeMap<>(pins);
        Map<Integer, Integer> forTopic = new TreeMap<>(p.getOrDefault(tp.topic(), Map.of()));
        forTopic.put(tp.partition(), broker);
        p.put(tp.topic(), forTopic);
        return new Assignment(o, p);
    }

    /** {@code tp} no longer pinned: it stays where it is until a rebalance evens the load out. */
    public Assignment unpinned(TopicPartition tp) {
        Map<String, Map<Integer, Integer>> p = new TreeMap<>(pins);
        Map<Integer, Integer> forTopic = new TreeMap<>(p.getOrDefault(tp.topic(), Map.of()));
        forTopic.remove(tp.partition());
        p.put(tp.topic(), forTopic);
        return new Assignment(owners, p);
    }

    /** The broker that owns {@code tp}, if any. */
    public OptionalInt owner(TopicPartition tp) {
        List<Integer> o = owners.get(tp.topic());
        if (o == null || tp.partition() < 0 || tp.partition() >= o.size() || o.get(tp.partition()) == UNASSIGNED) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(o.get(tp.partition()));
    }

    /**
     * {@link #rebalanced(Map, Set, Set)} with every live broker both keeping and receiving partitions.
     */
    public Assignment rebalanced(Map<String, Integer> topics, Set<Integer> live) {
        return rebalanced(topics, live, live);
    }

    /**
     * The next assignment for {@code topics} (name → partition count): a pinned partition goes to its pin
     * while that broker is in {@code keep} (live, or gone less than the grace period ago); any other keeps its
     * owner while that owner is in {@code keep}; one whose owner is not, or that is new, goes to the broker of
     * {@code live} owning fewest, lowest id first (a pinned one too, until its broker is back); then unpinned
     * partitions move from the most loaded live broker to the least loaded until no two differ by more than
     * one (a broker that joined gets its share), pinned ones counting towards the load but never moved.
     * Deleted topics and their pins drop out. Returns this very instance when nothing changes.
     */
    public Assignment rebalanced(Map<String, Integer> topics, Set<Integer> keep, Set<Integer> live) {
        Map<Integer, Integer> load = new HashMap<>();
        live.forEach(b -> load.put(b, 0));
        Map<String, List<Integer>> next = new TreeMap<>();
        List<TopicPartition> orphans = new ArrayList<>();
        new TreeMap<>(topics).forEach((topic, count) -> {
            List<Integer> before = owners.getOrDefault(topic, List.of());
            List<Integer> now = new ArrayList<>(count);
            Map<Integer, Integer> topicPins = pins.getOrDefault(topic, Map.of());
            for (int p = 0; p < count; p++) {
                int o = p < before.size() ? before.get(p) : UNASSIGNED;
                Integer pin = topicPins.get(p);
                if (pin != null && keep.contains(pin)) {
                    o = pin;
                }
                if (o != UNASSIGNED && keep.contains(o)) {
                    load.computeIfPresent(o, (b, n) -> n + 1);
                    now.add(o);
                } else {
                    now.add(UNASSIGNED);
                    orphans.add(new TopicPartition(topic, p));
                }
            }
            next.put(topic, now);
        });
        if (!live.isEmpty()) {
            for (TopicPartition tp : orphans) {
                int least = leastLoaded(load);
                load.merge(least, 1, Integer::sum);
                next.get(tp.topic()).set(tp.partition(), least);
            }
            // Even out: a broker that joined takes partitions from the most loaded (that has one not pinned to
            // it), one at a time, until no two live brokers differ by more than one. Each move narrows the gap, so
            // this ends. The old owner lets go before the new one takes over (ClusterStore.claim waits for the
            // holder to release).
            while (true) {
                int least = leastLoaded(load);
                TopicPartition moved = null;
                int from = -1;
                for (int b : byLoadDescending(load)) {
                    if (load.get(b) - load.get(least) <= 1) {
                        break;
                    }
                    moved = lastMovableOwnedBy(next, b);
                    if (moved != null) {
                        from = b;
                        break;
                    }
                }
                if (moved == null) {
                    break;
                }
                next.get(moved.topic()).set(moved.partition(), least);
                load.merge(from, -1, Integer::sum);
                load.merge(least, 1, Integer::sum);
            }
        }
        Map<String, Map<Integer, Integer>> keptPins = new TreeMap<>();
        pins.forEach((topic, p) -> {
            Integer count = topics.get(topic);
            if (count != null) {
                Map<Integer, Integer> kept = new TreeMap<>(p);
                kept.keySet().removeIf(partition -> partition >= count);
                keptPins.put(topic, kept);
            }
        });
        Assignment result = new Assignment(next, keptPins);
        return result.equals(this) ? this : result;
    }

    /** The owners and pins of the names {@code which} selects only. */
    public Assignment restrictedTo(java.util.function.Predicate<String> which) {
        Map<String, List<Integer>> o = new TreeMap<>(owners);
        o.keySet().removeIf(which.negate());
        Map<String, Map<Integer, Integer>> p = new TreeMap<>(pins);
        p.keySet().removeIf(which.negate());
        return new Assignment(o, p);
    }

    /** This assignment and {@code other}'s names (which this one must not have) together. */
    public Assignment plus(Assignment other) {
        Map<String, List<Integer>> o = new TreeMap<>(owners);
        o.putAll(other.owners);
        Map<String, Map<Integer, Integer>> p = new TreeMap<>(pins);
        p.putAll(other.pins);
        return new Assignment(o, p);
    }

    /**
     * The next assignment of partitions and coordinator slots ({@link CoordinatorSlots}): {@link #rebalanced} once for
     * {@code topics}, and once for each kind of slot, so that each is spread evenly on its own (a broker is not left
     * with every group slot and no partition). Returns this very instance when nothing changes.
     */
    public Assignment rebalancedWithSlots(Map<String, Integer> topics, Set<Integer> keep, Set<Integer> live) {
        Map<String, Integer> data = new TreeMap<>(topics);
        data.keySet().removeIf(t -> CoordinatorSlots.of(t).isPresent());
        Assignment next = restrictedTo(t -> CoordinatorSlots.of(t).isEmpty()).rebalanced(data, keep, live);
        for (CoordinatorSlots kind : CoordinatorSlots.values()) {
            next = next.plus(restrictedTo(kind.topic()::equals).rebalanced(CoordinatorSlots.counts(kind), keep, live));
        }
        return next.equals(this) ? this : next;
    }

    private static int leastLoaded(Map<Integer, Integer> load) {
        return load.entrySet().stream()
                .min(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .orElseThrow()
                .getKey();
    }

    private static List<Integer> byLoadDescending(Map<Integer, Integer> load) {
        return load.entrySet().stream()
                .sorted(Map.Entry.<Integer, Integer>comparingByValue()
                        .reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey)
                .toList();
    }

    /** The last partition {@code broker} owns that is not pinned to it. */
    private TopicPartition lastMovableOwnedBy(Map<String, List<Integer>> owners, int broker) {
        TopicPartition last = null;
        for (Map.Entry<String, List<Integer>> e : owners.entrySet()) {
            for (int p = 0; p < e.getValue().size(); p++) {
                TopicPartition tp = new TopicPartition(e.getKey(), p);
                if (e.getValue().get(p) == broker && pin(tp).orElse(UNASSIGNED) != broker) {
                    last = tp;
                }
            }
        }
        return last;
    }
}
