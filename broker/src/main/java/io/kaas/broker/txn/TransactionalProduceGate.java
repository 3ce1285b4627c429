package io.kaas.broker.txn;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce's transaction checks, from the batch headers only (records are never decoded):
 * <ul>
 *   <li>a control batch from a client is INVALID_RECORD: markers are the coordinator's alone (Apache's
 *       LogValidator refuses them from clients too);
 *   <li>a transactional batch must belong to an ongoing transaction that holds this partition: a late or
 *       zombie write would otherwise open a transaction no coordinator knows of, and no marker would ever
 *       close it — the partition's last stable offset would stay behind forever. Produce v12+ (a transaction
 *       protocol v2 client, KIP-890 part 2) adds the partition to the transaction instead, as Apache's
 *       partition leader does with AddPartitionsToTxn v5; older versions only verify (KIP-890 part 1).
 * </ul>
 * Errors as Apache's {@code AddPartitionsToTxnManager} hands them to Produce: PRODUCER_FENCED becomes
 * INVALID_PRODUCER_EPOCH, and a partition not in the transaction is TRANSACTION_ABORTABLE from v11, INVALID_TXN_STATE before.
 */
public final class TransactionalProduceGate {
    private static final int CONTROL_FLAG = 0x20, TRANSACTIONAL_FLAG = 0x10;
    private static final short FIRST_ABORTABLE_VERSION = 11, FIRST_ADDING_VERSION = 12;

    private final TransactionCoordinator txns;

    public TransactionalProduceGate(TransactionCoordinator txns) {
        this.txns = txns;
    }

    /** NONE, or the error for this partition's batches; framing problems are left to the engine's validation. */
    public Errors check(short produceVersion, String transactionalId, String topic, int partition, ByteBuffer batches) {
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
                if (transactionalId == null) {
                    return Errors.INVALID_TXN_STATE;
                }
                Errors e = txns.checkProduce(transactionalId, producerId, epoch, new TxnPartition(topic, partition),
                        produceVersion >= FIRST_ADDING_VERSION);
                if (e != Errors.NONE) {
                    return forProduce(e, produceVersion);
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

    private static Errors forProduce(Errors e, short version) {
        if (e == Errors.PRODUCER_FENCED) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        if (e == Errors.TRANSACTION_ABORTABLE && version < FIRST_ABORTABLE_VERSION) {
            return Errors.INVALID_TXN_STATE;
        }
        return e;
    }
}
