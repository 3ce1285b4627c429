package io.kaas.broker.txn;

import io.kaas.broker.txn.TransactionCoordinator.EndResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * What one EndTxn does to a transactional id's state: answer at once ({@code answer}), or write the PREPARE_*
 * record {@code prepared} and complete it. Pure: the coordinator applies it under the slot's lock.
 */
record EndTxnDecision(EndResult answer, TransactionRecord prepared) {
    private static EndTxnDecision answer(EndResult a) {
        return new EndTxnDecision(a, null);
    }

    private static EndTxnDecision fail(Errors e) {
        return answer(EndResult.failed(e));
    }

    private static EndTxnDecision prepare(TransactionRecord r) {
        return new EndTxnDecision(null, r);
    }

    /** Protocol v1 (EndTxn up to v4): the epoch must be the current one and stays; a repeated end is a retry. */
    static EndTxnDecision v1(TransactionRecord cur, long producerId, short epoch, boolean commit, long now) {
        Errors e = TransactionCoordinator.validateProducer(cur, producerId, epoch);
        if (e != Errors.NONE) {
            return fail(e);
        }
        return switch (cur.state()) {
            case ONGOING -> prepare(cur.prepared(commit, cur.producerEpoch(), cur.lastProducerEpoch(), now));
            case PREPARE_COMMIT -> fail(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> fail(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case COMPLETE_COMMIT -> commit ? answer(EndResult.of(cur)) : fail(Errors.INVALID_TXN_STATE); // a retry
            case COMPLETE_ABORT -> commit ? fail(Errors.INVALID_TXN_STATE) : answer(EndResult.of(cur));
            case EMPTY -> fail(Errors.INVALID_TXN_STATE);
        };
    }

    /**
     * Protocol v2 (EndTxn v5, KIP-890 part 2), Apache 4.4's {@code TransactionCoordinator.endTransaction}: every end
     * bumps the epoch and its markers carry the bumped one, so a zombie's late write of the old epoch is fenced on
     * every partition; an abort with nothing open still bumps it (no markers). A request with the epoch just before
     * the current one is a retry of an end that bumped it (answered from the completed state), and one with the
     * exhausted epoch under the previous producer id a retry of an end that moved to a new id.
     */
    static EndTxnDecision v2(TransactionRecord cur, long producerId, short epoch, boolean commit, long now) {
        if (cur == null) {
            return fail(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        boolean retryOnEpochBump = cur.producerEpoch() == epoch + 1;
        boolean retryOnOverflow = cur.previousProducerId() != null
                && cur.previousProducerId() == producerId
                && epoch == Short.MAX_VALUE - 1
                && cur.producerEpoch() == 0;
        boolean validEpoch = switch (cur.state()) {
            case ONGOING, EMPTY -> epoch == cur.producerEpoch();
            case PREPARE_COMMIT, PREPARE_ABORT -> retryOnEpochBump;
            case COMPLETE_COMMIT, COMPLETE_ABORT -> retryOnEpochBump || retryOnOverflow || epoch == cur.producerEpoch();
        };
        boolean retry = retryOnEpochBump || retryOnOverflow;
        if (cur.producerId() != producerId && !retryOnOverflow) {
            return fail(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (!validEpoch) {
            return fail(Errors.PRODUCER_FENCED);
        }
        // 32767 only after an end at 32766, which completes under a new producer id (TransactionRecord.completed).
        short bumped = cur.producerEpoch() == Short.MAX_VALUE ? cur.producerEpoch() : (short) (cur.producerEpoch() + 1);
        TransactionRecord emptyAbort = cur.prepared(false, bumped, cur.producerEpoch(), now);
        return switch (cur.state()) {
            case ONGOING -> prepare(cur.prepared(commit, bumped, cur.producerEpoch(), now));
            case COMPLETE_COMMIT ->
                commit
                        ? (retry ? answer(EndResult.of(cur)) : fail(Errors.INVALID_TXN_STATE))
                        : (retry ? fail(Errors.INVALID_TXN_STATE) : prepare(emptyAbort));
            case COMPLETE_ABORT ->
                commit ? fail(Errors.INVALID_TXN_STATE) : (retry ? answer(EndResult.of(cur)) : prepare(emptyAbort));
            case PREPARE_COMMIT -> fail(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> fail(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case EMPTY -> commit ? fail(Errors.INVALID_TXN_STATE) : prepare(emptyAbort);
        };
    }
}
