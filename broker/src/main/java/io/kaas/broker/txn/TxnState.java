package io.kaas.broker.txn;

/**
 * A transactional id's state, as Apache's coordinator names them (KIP-98; under protocol v2 an EndTxn also bumps the epoch).
 * EMPTY → ONGOING (AddPartitionsToTxn/AddOffsetsToTxn) → PREPARE_COMMIT/PREPARE_ABORT (EndTxn, a
 * timeout, or a fencing InitProducerId) → COMPLETE_COMMIT/COMPLETE_ABORT once every marker is written;
 * InitProducerId from EMPTY or COMPLETE_* bumps the epoch and goes back to EMPTY.
 */
public enum TxnState {
    EMPTY("Empty"),
    ONGOING("Ongoing"),
    PREPARE_COMMIT("PrepareCommit"),
    PREPARE_ABORT("PrepareAbort"),
    COMPLETE_COMMIT("CompleteCommit"),
    COMPLETE_ABORT("CompleteAbort");

    private final String wireName;

    TxnState(String wireName) {
        this.wireName = wireName;
    }

    /** The name ListTransactions/DescribeTransactions report (Apache's {@code TransactionState.stateName}). */
    public String wireName() {
        return wireName;
    }

    public boolean isPrepare() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }
}
