package io.kaas.broker.txn;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.Acks;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.ProducerStatus;
import io.kaas.storage.StorageException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Writes COMMIT/ABORT control batches (built by kafka-clients' {@code MemoryRecords.withEndTransactionMarker};
 * the broker builds these, it never decodes a client's batches) to every partition of a transaction,
 * through the engine's ordinary append, and completes once every one is fsynced.
 *
 * <p>Idempotent, so a retry after a crash or a failed write never writes a marker twice: a partition is
 * skipped when its producer state already shows the marker's effect — an epoch newer than the marker's,
 * or the same epoch with no open transaction. A partition that never saw the producer still gets the
 * marker: with a bumped epoch (timeout or fencing abort) it fences a zombie's late writes there.
 */
public final class TransactionMarkerWriter {
    /** One coordinator that never moves: Apache's coordinator epoch stays 0. */
    static final int COORDINATOR_EPOCH = 0;

    private final TopicCatalog topics;
    private final Executor syncer;

    /** {@code syncer} runs the explicit fsync after each marker (it may block on the disk). */
    TransactionMarkerWriter(TopicCatalog topics, Executor syncer) {
        this.topics = topics;
        this.syncer = syncer;
    }

    CompletableFuture<Void> write(long producerId, short epoch, boolean commit, Collection<TxnPartition> partitions) {
        List<CompletableFuture<?>> appends = new ArrayList<>();
        for (TxnPartition p : partitions) {
            PartitionLog log;
            try {
                log = topics.partition(p.topic(), p.partition());
            } catch (StorageException e) {
                if (e.kind() == StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION) {
                    continue; // deleted since it joined the transaction: nothing left to mark
                }
                return CompletableFuture.failedFuture(e);
            }
            appends.add(writeOne(log, producerId, epoch, commit, COORDINATOR_EPOCH));
        }
        return CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new));
    }

    /**
     * One partition's marker, unless its producer state shows it was written (then completes at once).
     * Also WriteTxnMarkers' path ({@code kafka-transactions.sh abort} of a hanging transaction).
     */
    public CompletableFuture<Void> writeOne(PartitionLog log, long producerId, short epoch, boolean commit, int coordinatorEpoch) {
        if (!needsMarker(log, producerId, epoch)) {
            return CompletableFuture.completedFuture(null);
        }
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(System.currentTimeMillis(), producerId, epoch,
                new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch));
        // acks=all fsyncs only when the append crosses the partition's flush interval (flush.messages may be
        // above 1): the explicit flush makes the marker durable before the transaction is completed.
        return log.append(marker.buffer(), Acks.ALL, -1).thenRunAsync(log::flush, syncer);
    }

    /** The partition has seen a newer epoch of this producer: a marker at {@code epoch} would be a zombie's. */
    public static boolean isStale(PartitionLog log, long producerId, short epoch) {
        return log.producers().stream().anyMatch(s -> s.producerId() == producerId && s.producerEpoch() > epoch);
    }

    static boolean needsMarker(PartitionLog log, long producerId, short epoch) {
        Optional<ProducerStatus> known = log.producers().stream().filter(s -> s.producerId() == producerId).findFirst();
        if (known.isEmpty()) {
            return true;
        }
        ProducerStatus s = known.get();
        return s.producerEpoch() < epoch || (s.producerEpoch() == epoch && s.currentTxnStartOffset() >= 0);
    }
}
