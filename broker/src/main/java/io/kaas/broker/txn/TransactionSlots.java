package io.kaas.broker.txn;

import io.kaas.broker.coordinator.SlotOwnership;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The coordinator's transactional ids in memory, slot by slot, each slot behind its file
 * ({@link TransactionStateStore}): a change is written to the slot's file before it becomes current. Each slot has
 * a monitor ({@link #lock}); the methods marked so are called with it held, so files are written in change order.
 * A change is written only while the slot is coordinated here ({@link SlotOwnership}: the caller holds the slot, and
 * {@link #put} checks it once more).
 */
final class TransactionSlots {
    private final TransactionStateStore store;
    private final SlotOwnership ownership;
    private final Object[] locks = new Object[TransactionStateStore.SLOTS];
    /** Per slot, guarded by its lock. */
    private final List<Map<String, TransactionRecord>> slots = new ArrayList<>();

    TransactionSlots(Path clusterDir, SlotOwnership ownership) {
        this.store = new TransactionStateStore(clusterDir);
        this.ownership = ownership;
        for (int i = 0; i < TransactionStateStore.SLOTS; i++) {
            locks[i] = new Object();
            slots.add(new TreeMap<>());
        }
    }

    Object lock(int slot) {
        return locks[slot];
    }

    /** Holds the slot lock. */
    TransactionRecord get(int slot, String transactionalId) {
        return slots.get(slot).get(transactionalId);
    }

    /** A copy of the slot's records. Holds the slot lock. */
    List<TransactionRecord> values(int slot) {
        return new ArrayList<>(slots.get(slot).values());
    }

    /** Writes the slot with {@code next} in it, then makes {@code next} current. Holds a hold of the slot and its lock. */
    void put(int slot, TransactionRecord next) {
        if (!ownership.active(slot)) {
            // Last line of defence: the callers answer NOT_COORDINATOR before anything is changed.
            throw new IllegalStateException(
                    "transaction " + next.transactionalId() + ": this broker no longer coordinates it");
        }
        Map<String, TransactionRecord> updated = new TreeMap<>(slots.get(slot));
        updated.put(next.transactionalId(), next);
        store.write(slot, updated.values());
        slots.get(slot).put(next.transactionalId(), next);
    }

    /** Removes the records {@code gone} matches from the slot's file, then from memory; the ids removed. Holds the slot lock. */
    List<String> removeWhere(int slot, Predicate<TransactionRecord> gone) {
        Map<String, TransactionRecord> kept = new TreeMap<>(slots.get(slot));
        if (!kept.values().removeIf(gone)) {
            return List.of();
        }
        List<String> removed = slots.get(slot).keySet().stream()
                .filter(id -> !kept.containsKey(id))
                .toList();
        store.write(slot, kept.values());
        removed.forEach(slots.get(slot)::remove);
        return removed;
    }

    /** Replaces the slot's records in memory with what its file holds (another broker may have written it); returns them. */
    List<TransactionRecord> reload(int slot) {
        List<TransactionRecord> loaded = store.load(slot);
        synchronized (locks[slot]) {
            slots.get(slot).clear();
            loaded.forEach(r -> slots.get(slot).put(r.transactionalId(), r));
        }
        return loaded;
    }

    /** Forgets the slot's records in memory (another broker coordinates it now; its file stays). */
    void unload(int slot) {
        synchronized (locks[slot]) {
            slots.get(slot).clear();
        }
    }

    /** The slot's records left in PREPARE_COMMIT or PREPARE_ABORT. */
    List<TransactionRecord> prepared(int slot) {
        synchronized (locks[slot]) {
            return slots.get(slot).values().stream()
                    .filter(r -> r.state().isPrepare())
                    .toList();
        }
    }

    List<TransactionRecord> all() {
        List<TransactionRecord> out = new ArrayList<>();
        for (int slot = 0; slot < TransactionStateStore.SLOTS; slot++) {
            synchronized (locks[slot]) {
                out.addAll(slots.get(slot).values());
            }
        }
        return out;
    }

    Optional<TransactionRecord> describe(String transactionalId) {
        int slot = TransactionStateStore.slotFor(transactionalId);
        synchronized (locks[slot]) {
            return Optional.ofNullable(slots.get(slot).get(transactionalId));
        }
    }
}
