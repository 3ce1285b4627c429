package io.kaas.broker.txn;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.storage.Acks;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.ProducerStatus;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
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
 *
 * <p>A group's offsets take part as its {@code __consumer_offsets} slot ({@link TxnPartition#offsetsOf}), as in
 * Apache: its marker goes to the group's coordinator, which commits or drops the offsets the producer staged there
 * ({@link GroupCoordinator#completeTransaction}; through WriteTxnMarkers when that is another broker).
 *
 * <p>With several brokers over one directory ({@link TransactionPeers}), a partition another broker leads gets its
 * marker through WriteTxnMarkers to that broker, as Apache's coordinator sends them; the leader applies the same
 * idempotence rule. A partition whose leader is unknown or moving (a takeover under way) is tried again every
 * {@value #RETRY_BACKOFF_MS} ms for up to {@value #RETRY_FOR_MS} ms; past that the write fails and the coordinator's
 * sweep drives the transaction again later.
 */
public final class TransactionMarkerWriter {
    static final long RETRY_BACKOFF_MS = 200, RETRY_FOR_MS = 20_000;

    private final TopicCatalog topics;
    private final GroupCoordinator groups;
    private final Executor syncer;
    private final ScheduledExecutorService retries;
    private final TransactionPeers peers;
    private final Clock clock;

    /**
     * {@code syncer} runs the explicit fsync after each marker (it may block on the disk) and the WriteTxnMarkers
     * sent to other brokers; {@code retries} schedules the next try; {@code peers} is null for a broker on its own;
     * {@code clock} stamps the control batches.
     */
    TransactionMarkerWriter(
            TopicCatalog topics,
            GroupCoordinator groups,
            Executor syncer,
            ScheduledExecutorService retries,
            TransactionPeers peers,
            Clock clock) {
        this.topics = topics;
        this.groups = groups;
        this.syncer = syncer;
        this.retries = retries;
        this.peers = peers;
        this.clock = clock;
    }

    /**
     * Every partition's marker; {@code coordinatorEpoch}: the coordinator epoch of the transactional id's slot here
     * (0 for a broker on its own), carried in the control batches and in WriteTxnMarkers, as Apache's.
     */
    CompletableFuture<Void> write(
            long producerId, short epoch, boolean commit, Collection<TxnPartition> partitions, int coordinatorEpoch) {
        List<CompletableFuture<?>> appends = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_FOR_MS);
        for (TxnPartition p : partitions) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            attempt(p, producerId, epoch, commit, coordinatorEpoch, deadline, done);
            appends.add(done);
        }
        return CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new));
    }

    private void attempt(
            TxnPartition p,
            long producerId,
            short epoch,
            boolean commit,
            int coordinatorEpoch,
            long deadline,
            CompletableFuture<Void> done) {
        CompletableFuture<Void> one;
        try {
            one = writeTo(p, producerId, epoch, commit, coordinatorEpoch);
        } catch (RuntimeException e) {
            one = CompletableFuture.failedFuture(e);
        }
        one.whenComplete((v, e) -> {
            if (e == null) {
                done.complete(null);
            } else if (peers == null || System.nanoTime() > deadline || fenced(e)) {
                done.completeExceptionally(e);
            } else {
                try {
                    retries.schedule(
                            () -> attempt(p, producerId, epoch, commit, coordinatorEpoch, deadline, done),
                            RETRY_BACKOFF_MS,
                            TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopping) {
                    done.completeExceptionally(e);
                }
            }
        });
    }

    /** A newer coordinator wrote a marker for the producer there: this one is a zombie, and retrying cannot help (Apache stops too). */
    private static boolean fenced(Throwable e) {
        Throwable cause = e;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof StorageException se && se.kind() == StorageException.Kind.COORDINATOR_FENCED;
    }

    private CompletableFuture<Void> writeTo(
            TxnPartition p, long producerId, short epoch, boolean commit, int coordinatorEpoch) {
        TransactionPeers.Route route = peers == null ? TransactionPeers.Route.LOCAL : peers.route(p);
        if (route == TransactionPeers.Route.NONE) {
            return CompletableFuture.failedFuture(new StorageException(
                    StorageException.Kind.NOT_OWNED,
                    p.topic() + "-" + p.partition() + ": no broker leads it now; its transaction marker waits"));
        }
        if (!route.local()) {
            return CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return peers.writeMarker(
                                            route.node(), p, producerId, epoch, commit, coordinatorEpoch);
                                } catch (IOException e) {
                                    throw new StorageException(
                                            StorageException.Kind.NOT_OWNED,
                                            p.topic() + "-" + p.partition() + ": WriteTxnMarkers to broker "
                                                    + route.node().nodeId() + " failed: " + e.getMessage(),
                                            e);
                                }
                            },
                            syncer)
                    .thenAccept(e -> {
                        // Written, written before, or made moot by a newer epoch or the topic's deletion (Apache stops
                        // there too).
                        if (e == Errors.TRANSACTION_COORDINATOR_FENCED) {
                            throw new StorageException(
                                    StorageException.Kind.COORDINATOR_FENCED,
                                    p.topic() + "-" + p.partition() + ": broker "
                                            + route.node().nodeId()
                                            + " has a marker of a newer coordinator of this producer");
                        }
                        if (e != Errors.NONE
                                && e != Errors.INVALID_PRODUCER_EPOCH
                                && e != Errors.UNKNOWN_TOPIC_OR_PARTITION) {
                            throw new StorageException(
                                    StorageException.Kind.NOT_OWNED,
                                    p.topic() + "-" + p.partition() + ": broker "
                                            + route.node().nodeId() + " answered WriteTxnMarkers with " + e.name());
                        }
                    });
        }
        if (p.isOffsets()) {
            // The group coordinator is this broker: its pending offsets for the slot become committed (or are dropped).
            return CompletableFuture.supplyAsync(
                            () -> groups.completeTransaction(p.partition(), producerId, commit), syncer)
                    .thenAccept(e -> {
                        if (e != Errors.NONE) {
                            throw new StorageException(
                                    StorageException.Kind.NOT_OWNED,
                                    p.topic() + "-" + p.partition()
                                            + ": this broker's group coordinator answered the marker with " + e.name());
                        }
                    });
        }
        PartitionLog log;
        try {
            log = topics.partition(p.topic(), p.partition());
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION) {
                return CompletableFuture.completedFuture(
                        null); // deleted since it joined the transaction: nothing left to mark
            }
            return CompletableFuture.failedFuture(e);
        }
        return writeOne(log, producerId, epoch, commit, coordinatorEpoch);
    }

    /**
     * One partition's marker, unless its producer state shows it was written (then completes at once).
     * Also WriteTxnMarkers' path ({@code kafka-transactions.sh abort} of a hanging transaction).
     */
    public CompletableFuture<Void> writeOne(
            PartitionLog log, long producerId, short epoch, boolean commit, int coordinatorEpoch) {
        if (!needsMarker(log, producerId, epoch)) {
            return CompletableFuture.completedFuture(null);
        }
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(
                clock.millis(),
                producerId,
                epoch,
                new EndTransactionMarker(
                        commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch));
        // acks=all fsyncs only when the append crosses the partition's flush interval (flush.messages may be
        // above 1): the explicit flush makes the marker durable before the transaction is completed.
        return log.append(marker.buffer(), Acks.ALL, -1).thenRunAsync(log::flush, syncer);
    }

    /** The partition has seen a newer epoch of this producer: a marker at {@code epoch} would be a zombie's. */
    public static boolean isStale(PartitionLog log, long producerId, short epoch) {
        return log.producers().stream().anyMatch(s -> s.producerId() == producerId && s.producerEpoch() > epoch);
    }

    static boolean needsMarker(PartitionLog log, long producerId, short epoch) {
        Optional<ProducerStatus> known = log.producers().stream()
                .filter(s -> s.producerId() == producerId)
                .findFirst();
        if (known.isEmpty()) {
            return true;
        }
        ProducerStatus s = known.get();
        return s.producerEpoch() < epoch || (s.producerEpoch() == epoch && s.currentTxnStartOffset() >= 0);
    }
}
