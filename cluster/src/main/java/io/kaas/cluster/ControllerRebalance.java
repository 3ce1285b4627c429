package io.kaas.cluster;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's one job: keep the assignment covering every topic's partitions and the coordinator slots over
 * the live brokers ({@link Assignment#rebalancedWithSlots}), written by compare-and-set. A broker the store shows
 * gone keeps what it was assigned for {@code grace} from when the controller first saw it gone: its lease expired,
 * so it stopped acknowledging before that ({@link LeaseKeeper}), and the grace covers a broker that is merely
 * rejoining.
 *
 * <p>{@code kaas-cluster} only (not thread-safe).
 */
final class ControllerRebalance {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerRebalance.class);

    private final ClusterStore store;
    private final long graceNanos;
    private final LongSupplier nanoClock;
    /** Asks for a reconcile in that many nanoseconds (a grace period ends), or at once (0: a lost race). */
    private final LongConsumer reconcileIn;
    /** When each broker holding partitions was first seen gone. */
    private final Map<Integer, Long> goneSince = new HashMap<>();

    ControllerRebalance(ClusterStore store, ClusterConfig config, LongSupplier nanoClock, LongConsumer reconcileIn) {
        this.store = store;
        this.graceNanos = config.grace().toNanos();
        this.nanoClock = nanoClock;
        this.reconcileIn = reconcileIn;
    }

    /**
     * The next assignment after {@code current} for {@code topics} over the {@code live} brokers, written by
     * compare-and-set; returns what is in force now (a lost race is redone at the next pass, asked for here).
     */
    Versioned<Assignment> rebalance(
            Versioned<Assignment> current, Map<String, Integer> topics, Map<Integer, BrokerRegistration> live, int me) {
        long now = nanoClock.getAsLong();
        Set<Integer> holders = new HashSet<>();
        current.value().owners().values().forEach(holders::addAll);
        holders.remove(Assignment.UNASSIGNED);
        goneSince.keySet().retainAll(holders);
        Set<Integer> keep = new HashSet<>(live.keySet());
        for (int b : holders) {
            if (!live.containsKey(b)) {
                long since = goneSince.computeIfAbsent(b, x -> now);
                long left = since + graceNanos - now;
                if (left > 0) {
                    keep.add(b);
                    reconcileIn.accept(left);
                }
            } else {
                goneSince.remove(b);
            }
        }
        Assignment next = current.value().rebalancedWithSlots(topics, keep, live.keySet());
        if (next == current.value()) {
            return current;
        }
        if (store.compareAndSetAssignment(current.version(), next)) {
            LOG.info("controller {}: assignment now {}", me, next.owners());
            return store.assignment();
        }
        reconcileIn.accept(0);
        return current;
    }
}
