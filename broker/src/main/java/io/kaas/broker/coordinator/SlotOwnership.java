package io.kaas.broker.coordinator;

import io.kaas.cluster.CoordinatorSlots;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.utils.Utils;

/**
 * Which slots of one coordinator kind ({@link CoordinatorSlots}: groups or transactional ids) this broker coordinates,
 * and the one rule both coordinators follow: <b>a write of a slot's state happens only while the slot is coordinated
 * here, and giving the slot up returns only once no such write is under way</b>, so a successor that claims the slot
 * after that reads every write its predecessor acknowledged, and an ex-coordinator never overwrites what the successor
 * writes.
 *
 * <p>A broker on its own coordinates every slot from the start. A broker sharing its directory with others
 * ({@link #coordinateWhenTaken}) coordinates a slot only between {@link #gain} and {@link #lose}, and only while its
 * self-fence allows ({@code mayAct}: false from the moment its lease may be expiring, so it stops before another may
 * take over).
 *
 * <p>Gaining a slot: the coordinator's {@link SlotState#load} (drop what an earlier term left in memory, re-read what
 * the predecessor wrote) runs while the slot is not yet coordinated, so no write of it can happen meanwhile; then the
 * slot is coordinated in its epoch; then {@link SlotState#serving} (finish what the predecessor left half done). Losing
 * one: the slot stops being coordinated under its write guard (waiting for every {@link #hold} of it), then
 * {@link SlotState#unload}.
 *
 * <p>Thread-safe. {@link #gain} and {@link #lose} come on {@code kaas-cluster} (one at a time); {@link #hold} on any
 * thread. Lock order: a {@link Held} is taken before the coordinator's monitor of the slot's state (transactions) or
 * inside a group's monitor (groups); {@link SlotState#load} and {@link SlotState#unload} run holding no guard, so they
 * may take any coordinator monitor.
 */
public final class SlotOwnership {
    /** What a coordinator does with one slot's state as this broker gains or loses the slot. */
    public interface SlotState {
        /** Before the slot is coordinated here: forget what an earlier term left in memory, re-read its files. */
        void load(int slot);

        /** Once the slot is coordinated here: complete what the predecessor left half done. */
        default void serving(int slot) {}

        /** The slot is no longer coordinated here and no write of it is under way: drop it from memory. */
        void unload(int slot);
    }

    private final CoordinatorSlots kind;
    private final SlotState state;
    /** Whether this broker coordinates every slot (on its own); with others, only those in {@link #held}. */
    private volatile boolean coordinatingAll = true;
    /** The self-fence of a broker sharing its directory (always true on its own). */
    private volatile BooleanSupplier mayAct = () -> true;
    /** The slots coordinated here (several brokers over one directory), with the coordinator epoch each was won in. */
    private final Map<Integer, Integer> held = new ConcurrentHashMap<>();
    /** Per slot: a {@link Held} takes the read side; {@link #lose} takes the write side. */
    private final ReentrantReadWriteLock[] guards;

    public SlotOwnership(CoordinatorSlots kind, SlotState state) {
        this.kind = kind;
        this.state = state;
        this.guards = new ReentrantReadWriteLock[kind.slots()];
        for (int i = 0; i < guards.length; i++) {
            guards[i] = new ReentrantReadWriteLock();
        }
    }

    /**
     * Apache's partition of a group id or transactional id ({@code Utils.abs(key.hashCode()) % slots}, as
     * {@code GroupCoordinatorService.partitionFor} and {@code TransactionStateManager.partitionFor}).
     */
    public static int slotFor(CoordinatorSlots kind, String key) {
        return Utils.abs(key.hashCode()) % kind.slots();
    }

    public CoordinatorSlots kind() {
        return kind;
    }

    /**
     * This broker shares its directory with others: it coordinates no slot until {@link #gain}, and acts only while
     * {@code mayAct} (its self-fence) allows.
     */
    public void coordinateWhenTaken(BooleanSupplier mayAct) {
        this.mayAct = mayAct;
        this.coordinatingAll = false;
    }

    /** Whether this broker coordinates every slot (it is on its own). */
    public boolean coordinatingAll() {
        return coordinatingAll;
    }

    /** Whether this broker coordinates {@code slot} now and its self-fence allows it to act. */
    public boolean active(int slot) {
        return (coordinatingAll || held.containsKey(slot)) && mayAct.getAsBoolean();
    }

    /** Whether this broker coordinates the slot of {@code key} (a group id or transactional id) now. */
    public boolean activeFor(String key) {
        return active(slotFor(kind, key));
    }

    /** The coordinator epoch {@code slot} was won in here (0 on its own): what transaction markers carry. */
    public int epoch(int slot) {
        return held.getOrDefault(slot, 0);
    }

    /** This broker becomes {@code slot}'s coordinator in coordinator epoch {@code epoch}. */
    public void gain(int slot, int epoch) {
        state.load(slot);
        held.put(slot, epoch);
        state.serving(slot);
    }

    /** Another broker coordinates {@code slot} from now on. Returns once no write of it is under way here. */
    public void lose(int slot) {
        ReentrantReadWriteLock.WriteLock guard = guards[slot].writeLock();
        guard.lock();
        try {
            held.remove(slot);
        } finally {
            guard.unlock();
        }
        state.unload(slot);
    }

    /**
     * Holds {@code slot} against {@link #lose} until closed: a write of the slot's state is made only inside a hold
     * whose {@link Held#coordinating} said yes. Close it in the thread that took it (try-with-resources).
     */
    public Held hold(int slot) {
        ReentrantReadWriteLock.ReadLock guard = guards[slot].readLock();
        guard.lock();
        return new Held(slot, guard);
    }

    /** Runs {@code write} inside a hold of {@code slot}, if this broker coordinates it; false, without running it, if not. */
    public boolean whileActive(int slot, Runnable write) {
        try (Held held = hold(slot)) {
            if (!held.coordinating()) {
                return false;
            }
            write.run();
            return true;
        }
    }

    /** A slot held against {@link #lose}; not thread-safe (one thread takes and closes it). */
    public final class Held implements AutoCloseable {
        private final int slot;
        private final ReentrantReadWriteLock.ReadLock guard;

        private Held(int slot, ReentrantReadWriteLock.ReadLock guard) {
            this.slot = slot;
            this.guard = guard;
        }

        /** Whether this broker coordinates the slot now: it cannot stop before this hold is closed (the fence aside). */
        public boolean coordinating() {
            return active(slot);
        }

        @Override
        public void close() {
            guard.unlock();
        }
    }
}
