package io.kaas.broker.txn;

import io.kaas.cluster.BrokerNode;
import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 *
 * <p>With several brokers over one directory, the transaction coordinator may be another broker: it is asked with
 * AddPartitionsToTxn ({@link TransactionPeers}), as Apache's partition leader asks it; an unreachable or moving
 * coordinator is NOT_ENOUGH_REPLICAS, which the producer retries.
 */
public final class TransactionalProduceGate {
    private static final int CONTROL_FLAG = 0x20, TRANSACTIONAL_FLAG = 0x10;
    private static final short FIRST_ABORTABLE_VERSION = 11, FIRST_ADDING_VERSION = 12;

    private final TransactionCoordinator txns;
    private final TransactionPeers peers;

    public TransactionalProduceGate(TransactionCoordinator txns) {
        this(txns, null);
    }

    /** {@code peers}: null for a broker on its own. */
    public TransactionalProduceGate(TransactionCoordinator txns, TransactionPeers peers) {
        this.txns = txns;
        this.peers = peers;
    }

    /** One partition's batches of a Produce request. */
    public record PartitionBatches(TxnPartition partition, ByteBuffer batches) {}

    /**
     * NONE, or the error, for each partition's batches (in order); framing problems are left to the engine's
     * validation. The partitions a v12+ request adds join the transaction with one coordinator write (one slot
     * file fsync), not one per partition, as Apache's partition leader sends one AddPartitionsToTxn per request.
     */
    public List<Errors> check(short produceVersion, String transactionalId, List<PartitionBatches> request) {
        List<Errors> out = new ArrayList<>();
        Map<ProducerSession, List<TxnPartition>> toAdd = new LinkedHashMap<>();
        Map<ProducerSession, List<TxnPartition>> toVerify = new LinkedHashMap<>();
        Optional<BrokerNode> coordinator =
                peers == null || transactionalId == null ? Optional.empty() : peers.remoteCoordinator(transactionalId);
        for (PartitionBatches pb : request) {
            ByteBuffer batches = pb.batches();
            Errors e = Errors.NONE;
            ProducerSession session = null;
            int pos = batches.position();
            boolean first = true;
            while (batches.limit() - pos >= RecordBatchHeader.HEADER_SIZE) {
                short attributes = batches.getShort(pos + RecordBatchHeader.ATTRIBUTES_OFFSET);
                if ((attributes & CONTROL_FLAG) != 0) {
                    e = Errors.INVALID_RECORD;
                    break;
                }
                if (first && (attributes & TRANSACTIONAL_FLAG) != 0) {
                    session = new ProducerSession(
                            batches.getLong(pos + RecordBatchHeader.PRODUCER_ID_OFFSET),
                            batches.getShort(pos + RecordBatchHeader.PRODUCER_EPOCH_OFFSET));
                }
                first = false;
                int length = batches.getInt(pos + RecordBatchHeader.LENGTH_OFFSET);
                if (length <= 0 || length > batches.limit() - pos - RecordBatchHeader.LOG_OVERHEAD) {
                    break;
                }
                pos += RecordBatchHeader.LOG_OVERHEAD + length;
            }
            if (e == Errors.NONE && session != null) {
                if (transactionalId == null) {
                    e = Errors.INVALID_TXN_STATE;
                } else if (produceVersion >= FIRST_ADDING_VERSION) {
                    toAdd.computeIfAbsent(session, s -> new ArrayList<>()).add(pb.partition());
                } else if (coordinator.isPresent()) {
                    toVerify.computeIfAbsent(session, s -> new ArrayList<>()).add(pb.partition());
                } else {
                    e = forProduce(
                            txns.verify(transactionalId, session.producerId(), session.epoch(), pb.partition()),
                            produceVersion);
                }
            }
            out.add(e);
        }
        Map<TxnPartition, Errors> added = new HashMap<>();
        toAdd.forEach((session, partitions) -> {
            if (coordinator.isPresent()) {
                peers.addPartitions(
                                coordinator.get(),
                                transactionalId,
                                session.producerId(),
                                session.epoch(),
                                partitions,
                                false)
                        .forEach((tp, e) -> added.put(tp, forProduce(e, produceVersion)));
                return;
            }
            Errors e = forProduce(
                    txns.addPartitions(transactionalId, session.producerId(), session.epoch(), partitions),
                    produceVersion);
            partitions.forEach(tp -> added.put(tp, e));
        });
        toVerify.forEach((session, partitions) -> peers.addPartitions(
                        coordinator.get(), transactionalId, session.producerId(), session.epoch(), partitions, true)
                .forEach((tp, e) -> added.put(tp, forProduce(e, produceVersion))));
        for (int i = 0; i < out.size(); i++) {
            Errors e = added.get(request.get(i).partition());
            if (e != null && out.get(i) == Errors.NONE) {
                out.set(i, e);
            }
        }
        return out;
    }

    private record ProducerSession(long producerId, short epoch) {}

    private static Errors forProduce(Errors e, short version) {
        if (e == Errors.PRODUCER_FENCED) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        if (e == Errors.NOT_COORDINATOR
                || e == Errors.COORDINATOR_NOT_AVAILABLE
                || e == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
            return Errors
                    .NOT_ENOUGH_REPLICAS; // the coordinator is moving: retriable for the producer (Apache's mapping)
        }
        if (e == Errors.TRANSACTION_ABORTABLE && version < FIRST_ABORTABLE_VERSION) {
            return Errors.INVALID_TXN_STATE;
        }
        return e;
    }
}
