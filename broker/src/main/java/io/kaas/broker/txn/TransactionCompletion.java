package io.kaas.broker.txn;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.storage.format.GroupOffsetsFile;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a transaction from PREPARE_* to COMPLETE_*: the markers on every partition and group slot in it
 * ({@link TransactionMarkerWriter}), then (commit) the offsets an earlier kaas staged in the slot file, then the
 * COMPLETE_* state, written to the slot file. Every step is idempotent, so a run redone after a crash, a failure or a
 * takeover changes nothing twice. One run per transactional id at a time: a sweep or a retried EndTxn joins the run in
 * flight.
 *
 * <p>Thread-safe. Runs start on any thread (a handler's, {@code kaas-cluster}'s, the sweep's); the markers are written
 * off the slot's monitor; the last step runs on {@code kaas-txn-coordinator}, inside a hold of the slot
 * ({@link SlotOwnership}) and under its monitor, and fails when the slot moved meanwhile (its next coordinator
 * completes it from the slot file).
 */
final class TransactionCompletion {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCompletion.class);
    /** How long a broker on its own waits at its start for the transactions a crash left prepared. */
    private static final long START_COMPLETION_TIMEOUT_SECONDS = 60;

    private final TransactionSlots slots;
    private final SlotOwnership ownership;
    private final TransactionMarkerWriter markers;
    private final GroupCoordinator groups;
    private final ProducerIdAllocator ids;
    private final Clock clock;
    private final Executor coordinatorThread;
    /** Transactions whose markers are being written, so a sweep or retry never drives one twice. */
    private final Map<String, CompletableFuture<TransactionRecord>> completing = new ConcurrentHashMap<>();

    TransactionCompletion(
            TransactionSlots slots,
            SlotOwnership ownership,
            TransactionMarkerWriter markers,
            GroupCoordinator groups,
            ProducerIdAllocator ids,
            Clock clock,
            Executor coordinatorThread) {
        this.slots = slots;
        this.ownership = ownership;
        this.markers = markers;
        this.groups = groups;
        this.ids = ids;
        this.clock = clock;
        this.coordinatorThread = coordinatorThread;
    }

    /** Whether a run for {@code transactionalId} is in flight. */
    boolean inFlight(String transactionalId) {
        return completing.containsKey(transactionalId);
    }

    /** Starts completing every transaction of {@code slot} left in PREPARE_* (a crash, or the slot's predecessor). */
    List<CompletableFuture<TransactionRecord>> completePrepared(int slot) {
        List<CompletableFuture<TransactionRecord>> runs = new ArrayList<>();
        for (TransactionRecord r : slots.prepared(slot)) {
            LOG.info(
                    "completing transaction {} left in {} (producer {} epoch {})",
                    r.transactionalId(),
                    r.state(),
                    r.producerId(),
                    r.producerEpoch());
            runs.add(complete(r));
        }
        return runs;
    }

    /** Waits, bounded, for {@code runs}: a stalled disk must not hold the broker's start forever (the sweep retries). */
    static void await(List<CompletableFuture<TransactionRecord>> runs) {
        for (CompletableFuture<TransactionRecord> f : runs) {
            try {
                f.get(START_COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                LOG.error("a transaction left prepared could not be completed now; the timeout sweep retries it", e);
            }
        }
    }

    /**
     * Drives a PREPARE_* transaction to COMPLETE_*, which the future returns. Joins the run already in flight for the
     * same transactional id, if any.
     */
    CompletableFuture<TransactionRecord> complete(TransactionRecord prepared) {
        CompletableFuture<TransactionRecord> mine = new CompletableFuture<>();
        CompletableFuture<TransactionRecord> running = completing.putIfAbsent(prepared.transactionalId(), mine);
        if (running != null) {
            return running;
        }
        CompletableFuture<TransactionRecord> run;
        try {
            run = markers.write(
                            prepared.producerId(),
                            prepared.producerEpoch(),
                            prepared.commits(),
                            prepared.partitions(),
                            ownership.epoch(TransactionStateStore.slotFor(prepared.transactionalId())))
                    .thenApplyAsync(v -> finish(prepared), coordinatorThread);
        } catch (RuntimeException e) {
            run = CompletableFuture.failedFuture(e);
        }
        run.whenComplete((done, e) -> {
            completing.remove(prepared.transactionalId(), mine);
            if (e != null) {
                mine.completeExceptionally(e);
            } else {
                mine.complete(done);
            }
        });
        return mine;
    }

    private TransactionRecord finish(TransactionRecord prepared) {
        int slot = TransactionStateStore.slotFor(prepared.transactionalId());
        try (SlotOwnership.Held held = ownership.hold(slot)) {
            if (!held.coordinating()) {
                // The next coordinator completes it from the slot file; offsets and state are its to write now.
                throw new IllegalStateException(
                        "transaction " + prepared.transactionalId() + ": no longer its coordinator");
            }
            // Offsets staged here by an earlier kaas (before they moved to the group coordinator): committed as then.
            if (prepared.commits() && !prepared.offsets().isEmpty()) {
                stagedOffsetsByGroup(prepared).forEach(groups::commitTransactional);
            }
            synchronized (slots.lock(slot)) {
                TransactionRecord cur = slots.get(slot, prepared.transactionalId());
                if (cur != null
                        && cur.state() == prepared.state()
                        && cur.producerId() == prepared.producerId()
                        && cur.producerEpoch() == prepared.producerEpoch()) {
                    TransactionRecord done =
                            cur.completed(cur.rotatesProducerId() ? ids.allocate() : -1, clock.millis());
                    slots.put(slot, done);
                    return done;
                }
                return cur != null ? cur : prepared;
            }
        }
    }

    private static Map<String, List<GroupOffsetsFile.Committed>> stagedOffsetsByGroup(TransactionRecord prepared) {
        Map<String, List<GroupOffsetsFile.Committed>> byGroup = new LinkedHashMap<>();
        for (StagedOffset o : prepared.offsets()) {
            byGroup.computeIfAbsent(o.groupId(), g -> new ArrayList<>())
                    .add(new GroupOffsetsFile.Committed(
                            o.topic(), o.partition(), o.offset(), o.leaderEpoch(), o.metadata(), o.commitTimestamp()));
        }
        return byGroup;
    }
}
