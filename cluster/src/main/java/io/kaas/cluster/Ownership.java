package io.kaas.cluster;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.StorageException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this broker holds, made to follow the assignment: it takes over the partitions and coordinator slots
 * assigned here (claims the next epoch in the store, only while nobody holds it, then hands it to the engine,
 * {@link StorageEngine#takeOver}, or to the coordinators, {@link CoordinatorSlots.Listener#gained}) and lets go of
 * those assigned elsewhere (closed cleanly or given up first, then released, so the next owner finds everything
 * written). When the lease is lost it gives everything up without a write ({@link #abandonAll}).
 *
 * <p>{@code kaas-cluster} only (not thread-safe), but for {@link #onCoordinatorSlots}.
 */
final class Ownership {
    private static final Logger LOG = LoggerFactory.getLogger(Ownership.class);

    private final ClusterStore store;
    private final StorageEngine engine;
    private final Membership membership;
    /** The coordinator slots this broker holds, with the coordinator epoch it claimed each in. */
    private final Map<TopicPartition, Integer> heldSlots = new HashMap<>();

    private volatile CoordinatorSlots.Listener slotListener = new CoordinatorSlots.Listener() {
        @Override
        public void gained(CoordinatorSlots kind, int slot, int epoch) {}

        @Override
        public void lost(CoordinatorSlots kind, int slot) {}
    };

    Ownership(ClusterStore store, StorageEngine engine, Membership membership) {
        this.store = store;
        this.engine = engine;
        this.membership = membership;
    }

    /** Who is told of the coordinator slots gained and lost from now on. */
    void onCoordinatorSlots(CoordinatorSlots.Listener listener) {
        slotListener = listener;
    }

    /** The coordinator slots held here, with their coordinator epochs. */
    Map<TopicPartition, Integer> heldSlots() {
        return Map.copyOf(heldSlots);
    }

    /** Takes over partitions assigned here and not yet held; releases held ones assigned elsewhere. */
    void adopt(Assignment a) {
        int me = membership.brokerId();
        Map<TopicPartition, Integer> held = engine.taken();
        for (TopicPartition tp : held.keySet()) {
            OptionalInt owner = a.owner(tp);
            if (owner.isEmpty() || owner.getAsInt() != me) {
                LOG.info("broker {}: {} is assigned elsewhere; releasing it", me, tp);
                engine.release(tp); // closed cleanly (fsync, state files) before the next owner may claim it
                store.release(tp, me);
            }
        }
        for (Map.Entry<String, List<Integer>> e : a.owners().entrySet()) {
            if (CoordinatorSlots.of(e.getKey()).isPresent()) {
                continue;
            }
            for (int p = 0; p < e.getValue().size(); p++) {
                TopicPartition tp = new TopicPartition(e.getKey(), p);
                if (e.getValue().get(p) == me && !held.containsKey(tp) && membership.mayAcknowledge()) {
                    takeOver(tp);
                }
            }
        }
        adoptSlots(a);
    }

    /**
     * The coordinator slots' part of {@link #adopt}: a slot assigned elsewhere is given up (nothing more of it is
     * written here) and then released; one assigned here is claimed in the next coordinator epoch (only while no
     * broker holds it: its last holder gave it up and released it, or its lease expired, after its self-fence
     * closed), then loaded.
     */
    private void adoptSlots(Assignment a) {
        int me = membership.brokerId();
        for (Iterator<Map.Entry<TopicPartition, Integer>> it =
                        heldSlots.entrySet().iterator();
                it.hasNext(); ) {
            TopicPartition slot = it.next().getKey();
            OptionalInt owner = a.owner(slot);
            if (owner.isEmpty() || owner.getAsInt() != me) {
                LOG.debug("broker {}: coordinator slot {} is assigned elsewhere; giving it up", me, slot);
                slotListener.lost(CoordinatorSlots.of(slot.topic()).orElseThrow(), slot.partition());
                it.remove();
                store.release(slot, me);
            }
        }
        for (CoordinatorSlots kind : CoordinatorSlots.values()) {
            for (int n = 0; n < kind.slots(); n++) {
                TopicPartition slot = kind.slot(n);
                OptionalInt owner = a.owner(slot);
                if (owner.isPresent()
                        && owner.getAsInt() == me
                        && !heldSlots.containsKey(slot)
                        && membership.mayAcknowledge()) {
                    takeOverSlot(kind, slot);
                }
            }
        }
    }

    private void takeOverSlot(CoordinatorSlots kind, TopicPartition slot) {
        int me = membership.brokerId();
        Versioned<Integer> epoch = store.epoch(slot);
        int next = epoch.value() + 1;
        if (!store.claim(slot, epoch.version(), next, me, membership.lease())) {
            return; // still held by its last holder (its release's watch event brings us back) or a lost race
        }
        try {
            slotListener.gained(kind, slot.partition(), next);
            heldSlots.put(slot, next);
            LOG.debug("broker {}: coordinates {} in coordinator epoch {}", me, slot, next);
        } catch (RuntimeException e) {
            LOG.error("broker {}: cannot load coordinator slot {}: {}", me, slot, e.toString());
            slotListener.lost(kind, slot.partition());
            store.release(slot, me);
        }
    }

    private void takeOver(TopicPartition tp) {
        int me = membership.brokerId();
        Versioned<Integer> epoch = store.epoch(tp);
        int next = epoch.value() + 1;
        if (!store.claim(tp, epoch.version(), next, me, membership.lease())) {
            // Still held (its last owner has not let go; the release's watch event brings us back) or a lost race.
            return;
        }
        try {
            engine.takeOver(tp, next);
            LOG.info("broker {}: took over {} in epoch {}", me, tp, next);
        } catch (StorageException e) {
            LOG.error("broker {}: cannot take over {} in epoch {}: {}", me, tp, next, e.getMessage());
            store.release(tp, me);
        }
    }

    /**
     * The lease is gone: everything held here may already be another's. Every slot is given up and every partition
     * dropped without a write; nothing is released (the holder keys went with the lease).
     */
    void abandonAll() {
        // Another broker may hold these slots already; coming back as their holder later re-reads what it wrote.
        for (TopicPartition slot : heldSlots.keySet()) {
            CoordinatorSlots kind = CoordinatorSlots.of(slot.topic()).orElseThrow();
            slotListener.lost(kind, slot.partition());
        }
        heldSlots.clear();
        for (TopicPartition tp : engine.taken().keySet()) {
            engine.abandon(tp);
        }
    }
}
