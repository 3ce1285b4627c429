package io.kaas.storage;

import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /** Every producer {@code producers} remembers, with its open transaction from {@code txns}. Holds the partition lock. */
    static List<ProducerStatus> of(ProducerStateTable producers, TxnIndex txns) {
        Map<Long, Long> open = new HashMap<>();
        txns.snapshot().open().forEach(o -> open.put(o.producerId(), o.firstOffset()));
        List<ProducerStatus> out = new ArrayList<>();
        for (ProducerStateSnapshot.Entry e : producers.snapshot().entries()) {
            int lastSeq = e.recent().isEmpty()
                    ? -1
                    : e.recent().get(e.recent().size() - 1).lastSeq();
            out.add(new ProducerStatus(
                    e.producerId(),
                    e.epoch(),
                    lastSeq,
                    producers.lastTimestamp(e.producerId()),
                    open.getOrDefault(e.producerId(), -1L),
                    e.coordinatorEpoch()));
        }
        return out;
    }
}
