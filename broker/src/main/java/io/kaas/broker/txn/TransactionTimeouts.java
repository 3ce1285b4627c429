package io.kaas.broker.txn;

import io.kaas.broker.coordinator.SlotOwnership;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's sweep, every {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}: aborts (with a
 * bumped epoch, fencing the producer) every ONGOING transaction open longer than its timeout, so none blocks a
 * partition's last stable offset forever; drives again the PREPARE_* ones no run is completing (markers that failed);
 * forgets transactional ids unused for {@code transactional.id.expiration.ms}.
 *
 * <p>Runs on {@code kaas-txn-coordinator} (or a test's thread); each slot is swept inside a hold of it and under its
 * monitor, and only while it is coordinated here. Time is the coordinator's {@link Clock} (wall clock: a
 * transaction's start survives a restart).
 */
final class TransactionTimeouts {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionTimeouts.class);

    private final TransactionSlots slots;
    private final SlotOwnership ownership;
    private final TransactionCompletion completion;
    private final TransactionConfig config;
    private final Clock clock;

    TransactionTimeouts(
            TransactionSlots slots,
            SlotOwnership ownership,
            TransactionCompletion completion,
            TransactionConfig config,
            Clock clock) {
        this.slots = slots;
        this.ownership = ownership;
        this.completion = completion;
        this.config = config;
        this.clock = clock;
    }

    void sweep() {
        try {
            long now = clock.millis();
            List<TransactionRecord> toComplete = new ArrayList<>();
            for (int slot = 0; slot < TransactionStateStore.SLOTS; slot++) {
                try (SlotOwnership.Held held = ownership.hold(slot)) {
                    if (!held.coordinating()) {
                        continue;
                    }
                    synchronized (slots.lock(slot)) {
                        expire(slot, now);
                        toComplete.addAll(dueOrStuck(slot, now));
                    }
                }
            }
            toComplete.forEach(r -> completion.complete(r).exceptionally(e -> {
                LOG.warn(
                        "transaction {}: completing failed, retried next sweep: {}", r.transactionalId(), e.toString());
                return null;
            }));
        } catch (RuntimeException e) {
            LOG.warn("transaction timeout sweep failed", e);
        }
    }

    /** The slot's transactions to drive now: timed-out ones, prepared to abort (written here); stuck PREPARE_* ones. */
    private List<TransactionRecord> dueOrStuck(int slot, long now) {
        List<TransactionRecord> out = new ArrayList<>();
        for (TransactionRecord r : slots.values(slot)) {
            if (r.state() == TxnState.ONGOING && now - r.startTimestamp() > r.timeoutMs()) {
                LOG.info(
                        "aborting transaction {} (producer {} epoch {}): open longer than its timeout of {} ms",
                        r.transactionalId(),
                        r.producerId(),
                        r.producerEpoch(),
                        r.timeoutMs());
                TransactionRecord abort = r.fencingAbort(now);
                slots.put(slot, abort);
                out.add(abort);
            } else if (r.state().isPrepare() && !completion.inFlight(r.transactionalId())) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Apache's {@code transactional.id.expiration.ms}: an id with nothing open or completing (EMPTY, COMPLETE_COMMIT,
     * COMPLETE_ABORT) whose state has not changed for that long is removed from its slot file, then from memory.
     * Its producer id is forgotten with it: a later call with it gets INVALID_PRODUCER_ID_MAPPING, and
     * InitProducerId starts the id afresh. Holds the slot lock.
     */
    private void expire(int slot, long now) {
        long before = now - config.idExpiration().toMillis();
        List<String> gone = slots.removeWhere(
                slot,
                r -> (r.state() == TxnState.EMPTY
                                || r.state() == TxnState.COMPLETE_COMMIT
                                || r.state() == TxnState.COMPLETE_ABORT)
                        && r.lastUpdateTimestamp() <= before
                        && !completion.inFlight(r.transactionalId()));
        if (!gone.isEmpty()) {
            LOG.info(
                    "transactional ids expired after {} ms without use: {}",
                    config.idExpiration().toMillis(),
                    gone);
        }
    }
}
