package io.kaas.storage;

/**
 * What a partition knows of one producer (DescribeProducers, KIP-664; and the transaction
 * coordinator's check that a marker is not written twice).
 *
 * @param producerId            the producer id
 * @param producerEpoch         the latest epoch seen in a batch or marker of this producer
 * @param lastSequence          last sequence of its newest batch still in the idempotence window, or -1
 * @param lastTimestamp         largest batch timestamp seen since the partition opened, or -1 (not kept across a restart)
 * @param currentTxnStartOffset first offset of its open transaction, or -1 when none is open
 */
public record ProducerStatus(long producerId, short producerEpoch, int lastSequence, long lastTimestamp,
                             long currentTxnStartOffset) {}
