package io.kaas.broker.txn;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce's transaction checks, from the batch headers only (records are never decoded):
 * <ul>
 *   <li>a control batch from a client is INVALID_RECORD: markers are the coordinator's alone (Apache's
 *       LogValidator refuses them from clients too);
 *   <li>a transactional batch must belong to an ongoing transaction that holds this partition (KIP-890
 *       part 1's verification, answered INVALID_TXN_STATE): a late or zombie write would otherwise open a
 *       transaction no coordinator knows of, and no marker would ever close it — the partition's last
 *       stable offset would stay behind forever.
 * </ul>
 */
public final class TransactionalProduceGate {
    private static final int CONTROL_FLAG = 0x20, TRANSACTIONAL_FLAG = 0x10;

    private final TransactionCoordinator txns;

    public TransactionalProduceGate(TransactionCoordinator txns) {
        this.txns = txns;
    }

    /** NONE, or the error for this partition's batches; framing problems are left to the engine's validation. */
    public Errors check(String transactionalId, String topic, int partition, ByteBuffer batches) {
        int pos = batches.position();
        boolean first = true;
        while (batches.limit() - pos >= RecordBatchHeader.HEADER_SIZE) {
            short attributes = batches.getShort(pos + RecordBatchHeader.ATTRIBUTES_OFFSET);
            if ((attributes & CONTROL_FLAG) != 0) {
                return Errors.INVALID_RECORD;
            }
            if (first && (attributes & TRANSACTIONAL_FLAG) != 0) {
                long producerId = batches.getLong(pos + RecordBatchHeader.PRODUCER_ID_OFFSET);
                short epoch = batches.getShort(pos + RecordBatchHeader.PRODUCER_EPOCH_OFFSET);
                if (transactionalId == null
                        || !txns.inTransaction(transactionalId, producerId, epoch, new TxnPartition(topic, partition))) {
                    return Errors.INVALID_TXN_STATE;
                }
            }
            first = false;
            int length = batches.getInt(pos + RecordBatchHeader.LENGTH_OFFSET);
            if (length <= 0 || length > batches.limit() - pos - RecordBatchHeader.LOG_OVERHEAD) {
                break;
            }
            pos += RecordBatchHeader.LOG_OVERHEAD + length;
        }
        return Errors.NONE;
    }
}
