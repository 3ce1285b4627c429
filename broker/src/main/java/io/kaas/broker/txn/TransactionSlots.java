package io.kaas.broker.txn;

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
 */
final class TransactionSlots {
    private final TransactionStateStore store;
    private final Object[] locks = new Object[TransactionStateStore.SLOTS];
    /** Per slot, guarded by its lock. */
    private final List<Map<String, TransactionRecord>> slots = new ArrayList<>();

    TransactionSlots(Path clusterDir) {
        this.store = new TransactionStateStore(clusterDir);
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

    /** Writes the slot with {@code next} in it, then makes {@code next} current. Holds the slot lock. */
    void put(int slot, TransactionRecord next) {
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

    /** Replaces the slot's records in memory with what its file holds (another broker may have written it); returns them. Holds the slot lock. */
    List<TransactionRecord> reload(int slot) {
        List<TransactionRecord> loaded = store.load(slot);
        synchronized (locks[slot]) {
            slots.get(slot).clear();
            loaded.forEach(r -> slots.get(slot).put(r.transactionalId(), r));
        }
        return loaded;
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
