package io.kaas.broker.txn;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.txn.TransactionCoordinator.InitResult;
import java.time.Clock;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId: a transactional id's producer sessions. Each call starts a new session with the epoch bumped, so a
 * zombie with an older one is fenced on every partition it writes; an open transaction is aborted first (answered
 * CONCURRENT_TRANSACTIONS meanwhile, as Apache); KIP-360's expected producer id and epoch recognise a retry; an
 * exhausted epoch moves to a new producer id.
 *
 * <p>Thread-safe: each call holds the transactional id's slot ({@link SlotOwnership}) and its monitor while it decides
 * and writes; the fencing abort's markers are written after both are released.
 */
final class ProducerSessions {
    private final TransactionSlots slots;
    private final SlotOwnership ownership;
    private final ProducerIdAllocator ids;
    private final TransactionConfig config;
    private final TransactionCompletion completion;
    private final Clock clock;

    ProducerSessions(
            TransactionSlots slots,
            SlotOwnership ownership,
            ProducerIdAllocator ids,
            TransactionConfig config,
            TransactionCompletion completion,
            Clock clock) {
        this.slots = slots;
        this.ownership = ownership;
        this.ids = ids;
        this.config = config;
        this.completion = completion;
        this.clock = clock;
    }

    /** {@code expectedProducerId}/{@code expectedEpoch} are KIP-360's (-1 for a first call). */
    InitResult initProducerId(String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch) {
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeout().toMillis()) {
            return InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT);
        }
        int slot = TransactionStateStore.slotFor(transactionalId);
        TransactionRecord fencing;
        try (SlotOwnership.Held held = ownership.hold(slot)) {
            if (!held.coordinating()) {
                return InitResult.failed(Errors.NOT_COORDINATOR);
            }
            synchronized (slots.lock(slot)) {
                long now = clock.millis();
                TransactionRecord cur = slots.get(slot, transactionalId);
                if (cur == null) {
                    TransactionRecord fresh = TransactionRecord.fresh(transactionalId, ids.allocate(), timeoutMs, now);
                    slots.put(slot, fresh);
                    return new InitResult(Errors.NONE, fresh.producerId(), fresh.producerEpoch());
                }
                boolean expected = expectedProducerId >= 0;
                if (expected && expectedProducerId != cur.producerId()) {
                    return InitResult.failed(Errors.PRODUCER_FENCED);
                }
                switch (cur.state()) {
                    case PREPARE_COMMIT, PREPARE_ABORT:
                        return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
                    case ONGOING:
                        fencing = cur.fencingAbort(now);
                        slots.put(slot, fencing);
                        break;
                    default:
                        TransactionRecord next = nextSession(cur, expected ? expectedEpoch : null, timeoutMs, now);
                        if (next == null) {
                            return InitResult.failed(Errors.PRODUCER_FENCED);
                        }
                        if (next != cur) {
                            slots.put(slot, next);
                        }
                        return new InitResult(Errors.NONE, next.producerId(), next.producerEpoch());
                }
            }
        }
        completion.complete(fencing);
        return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
    }

    /**
     * Apache's {@code prepareIncrementProducerEpoch}: without an expected epoch, a bump that forgets the previous
     * epoch (so an older session's KIP-360 retry is fenced); with the current epoch, a bump remembering it; with
     * the previous epoch, a retry of a bump whose answer was lost: {@code cur} unchanged. Null: fenced. An
     * exhausted epoch moves to a new producer id.
     */
    private TransactionRecord nextSession(TransactionRecord cur, Short expectedEpoch, int timeoutMs, long now) {
        if (expectedEpoch != null && expectedEpoch != cur.producerEpoch()) {
            return expectedEpoch == cur.lastProducerEpoch() ? cur : null;
        }
        if (cur.producerEpoch() >= Short.MAX_VALUE - 1) {
            return cur.nextSession(ids.allocate(), (short) 0, (short) -1, timeoutMs, now);
        }
        short last = expectedEpoch == null ? -1 : cur.producerEpoch();
        return cur.nextSession(cur.producerId(), (short) (cur.producerEpoch() + 1), last, timeoutMs, now);
    }
}
