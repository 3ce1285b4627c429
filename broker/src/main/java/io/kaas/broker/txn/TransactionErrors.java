package io.kaas.broker.txn;

import org.apache.kafka.common.protocol.Errors;

/** Errors as each API version knows them. */
public final class TransactionErrors {
    private TransactionErrors() {}

    /**
     * PRODUCER_FENCED exists from InitProducerId v4, AddPartitionsToTxn/AddOffsetsToTxn/EndTxn v2 and
     * TxnOffsetCommit v3 (KIP-588); older versions get INVALID_PRODUCER_EPOCH, as Apache answers them.
     */
    public static Errors forVersion(Errors e, short version, int firstProducerFencedVersion) {
        return e == Errors.PRODUCER_FENCED && version < firstProducerFencedVersion ? Errors.INVALID_PRODUCER_EPOCH : e;
    }
}
