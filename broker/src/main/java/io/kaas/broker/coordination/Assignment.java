package io.kaas.broker.coordination;

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
 * Which broker owns each partition: topic → owner id per partition index ({@link #UNASSIGNED} for none).
 * Immutable; the controller computes the next one with {@link #rebalanced} and writes it by compare-and-set.
 */
public record Assignment(@JsonProperty("owners") Map<String, List<Integer>> owners) {
    public static final int UNASSIGNED = -1;
    public static final Assignment EMPTY = new Assignment(Map.of());

    public Assignment {
        Map<String, List<Integer>> copy = new TreeMap<>();
        if (owners != null) {
            owners.forEach((t, o) -> copy.put(t, List.copyOf(o)));
        }
        owners = Map.copyOf(copy);
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
     * The next assignment for {@code topics} (name → partition count): a partition keeps its owner while
     * that owner is in {@code keep} (live, or gone less than the grace period ago); one whose owner is not,
     * or that is new, goes to the broker of {@code live} owning fewest, lowest id first; then partitions move
     * from the most loaded live broker to the least loaded until no two differ by more than one (a broker
     * that joined gets its share). Deleted topics drop out. Returns this very instance when nothing changes.
     */
    public Assignment rebalanced(Map<String, Integer> topics, Set<Integer> keep, Set<Integer> live) {
        Map<Integer, Integer> load = new HashMap<>();
        live.forEach(b -> load.put(b, 0));
        Map<String, List<Integer>> next = new TreeMap<>();
        List<TopicPartition> orphans = new ArrayList<>();
        new TreeMap<>(topics).forEach((topic, count) -> {
            List<Integer> before = owners.getOrDefault(topic, List.of());
            List<Integer> now = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                int o = p < before.size() ? before.get(p) : UNASSIGNED;
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
            // Even out: a broker that joined takes partitions from the most loaded, one at a time, until no
            // two live brokers differ by more than one. The old owner lets go before the new one takes over
            // (ClusterStore.claim waits for the holder to release).
            while (true) {
                int most = load.entrySet().stream()
                        .max(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                        .orElseThrow().getKey();
                int least = leastLoaded(load);
                if (load.get(most) - load.get(least) <= 1) {
                    break;
                }
                TopicPartition moved = lastOwnedBy(next, most);
                next.get(moved.topic()).set(moved.partition(), least);
                load.merge(most, -1, Integer::sum);
                load.merge(least, 1, Integer::sum);
            }
        }
        Assignment result = new Assignment(next);
        return result.equals(this) ? this : result;
    }

    private static int leastLoaded(Map<Integer, Integer> load) {
        return load.entrySet().stream()
                .min(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .orElseThrow().getKey();
    }

    private static TopicPartition lastOwnedBy(Map<String, List<Integer>> owners, int broker) {
        TopicPartition last = null;
        for (Map.Entry<String, List<Integer>> e : owners.entrySet()) {
            for (int p = 0; p < e.getValue().size(); p++) {
                if (e.getValue().get(p) == broker) {
                    last = new TopicPartition(e.getKey(), p);
                }
            }
        }
        return last;
    }
}
