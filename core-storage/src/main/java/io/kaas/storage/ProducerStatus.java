package io.kaas.storage;

import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;

/**
 * What a partition knows of one producer (DescribeProducers, KIP-664; and the transaction
 * coordinator's check that a marker is not written twice).
 *
 * @param producerId            the producer id
 * @param producerEpoch         the latest epoch seen in a batch or marker of this producer
 * @param lastSequence          last sequence of its newest batch still in the idempotence window, or -1
 * @param lastTimestamp         largest batch timestamp seen since the partition opened, or -1 (not kept across a restart)
 * @param currentTxnStartOffset first offset of its open transaction, or -1 when none is open
 * @param coordinatorEpoch      the coordinator epoch of the last transaction marker written for it, or -1
 */
public record ProducerStatus(
        long producerId,
        short producerEpoch,
        int lastSequence,
        long lastTimestamp,
        long currentTxnStartOffset,
        int coordinatorEpoch) {

    /** {@code producerId} as {@code producers} and {@code txns} know it, or null when unknown. Holds the partition lock. */
    static ProducerStatus of(long producerId, ProducerStateTable producers, TxnIndex txns) {
        ProducerStateSnapshot.Entry e = producers.entry(producerId);
        if (e == null) {
            return null;
        }
        int lastSeq = e.recent().isEmpty()
                ? -1
                : e.recent().get(e.recent().size() - 1).lastSeq();
        return new ProducerStatus(
                producerId,
                e.epoch(),
                lastSeq,
                producers.lastTimestamp(producerId),
                txns.openTransactionStart(producerId),
                e.coordinatorEpoch());
    }
}
