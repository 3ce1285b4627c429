package io.kaas.broker.txn;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.cluster.CoordinatorSlots;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator (KIP-98; both protocols: v1, and v2 of KIP-890 part 2 for EndTxn v5): what the
 * transaction APIs ask of it. A broker on its own coordinates every transactional id; with several brokers each id's
 * slot has one coordinator ({@link SlotOwnership}). See {@link TxnState} for the state machine; its parts:
 * {@link ProducerSessions} (InitProducerId), {@link EndTxnDecision} (EndTxn), {@link TransactionCompletion} (PREPARE_*
 * to COMPLETE_*, markers included), {@link TransactionTimeouts} (the sweep).
 *
 * <p><b>Durability order</b>: every change is written to its slot file ({@link TransactionStateStore})
 * before it is answered or acted on. Ending a transaction: PREPARE_* written → markers appended and
 * fsynced on every partition, and sent to the coordinator of each group slot in it, which commits or drops the
 * offsets TxnOffsetCommit staged there ({@link TransactionMarkerWriter}) → COMPLETE_* written → EndTxn answered. A crash
 * anywhere leaves PREPARE_* (redone at {@link #start}: markers and offsets are idempotent) or COMPLETE_*; an ONGOING
 * transaction is aborted by the timeout sweep once its timeout passes, so none blocks a partition's last stable offset
 * forever.
 *
 * <p><b>Several brokers over one directory</b>: transactional ids are spread over the {@code __transaction_state}
 * slots, each coordinated by one broker at a time (the one FindCoordinator names). A broker acts for a slot only
 * while it {@link #takeCoordination took} that slot's coordination and its self-fence allows; otherwise every call
 * answers NOT_COORDINATOR and nothing is written, so an ex-coordinator never overwrites a slot file its successor owns.
 * Taking coordination re-reads the slot file its predecessor wrote and completes the transactions left prepared, as
 * Apache's coordinator does when it loads a {@code __transaction_state} partition; ongoing ones stay open (the producer
 * may still end them) until their timeout. Giving it up forgets the slot's transactions here.
 *
 * <p>Thread-safe: each change holds its slot ({@link SlotOwnership#hold}), then the slot's monitor guarding its
 * transactions and its file (so files are written in change order); marker writes run outside both. Owns
 * {@code kaas-txn-coordinator} (timeout sweep, expiration, completions) and {@code kaas-txn-marker-sync-*} (the fsyncs
 * of markers, partitions in parallel), stopped by {@link #stop}. Time is read from one {@link Clock}.
 */
public final class TransactionCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    private static final int MARKER_SYNC_THREADS = 4;

    /** What InitProducerId answers. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult failed(Errors e) {
            return new InitResult(e, -1, (short) -1);
        }
    }

    private final SlotOwnership ownership;
    private final TransactionSlots slots;
    private final TransactionConfig config;
    private final Clock clock;
    private final ScheduledExecutorService thread;
    private final ExecutorService markerSyncs;
    private final TransactionMarkerWriter markers;
    private final TransactionCompletion completion;
    private final ProducerSessions sessions;
    private final TransactionTimeouts timeouts;

    /** The coordinator of a broker on its own. */
    public TransactionCoordinator(
            Path clusterDir,
            ProducerIdAllocator ids,
            TopicCatalog topics,
            GroupCoordinator groups,
            TransactionConfig config) {
        this(clusterDir, ids, topics, groups, config, null, () -> true);
    }

    /**
     * With {@code peers} (several brokers over one directory), markers of partitions other brokers lead are sent to
     * them, and nothing is coordinated until {@link #takeCoordination}; {@code mayAct} is the broker's self-fence.
     */
    public TransactionCoordinator(
            Path clusterDir,
            ProducerIdAllocator ids,
            TopicCatalog topics,
            GroupCoordinator groups,
            TransactionConfig config,
            TransactionPeers peers,
            BooleanSupplier mayAct) {
        this(clusterDir, ids, topics, groups, config, peers, mayAct, Clock.systemUTC());
    }

    /** As above, reading time from {@code clock} (transaction timeouts, id expiration, the records' timestamps). */
    public TransactionCoordinator(
            Path clusterDir,
            ProducerIdAllocator ids,
            TopicCatalog topics,
            GroupCoordinator groups,
            TransactionConfig config,
            TransactionPeers peers,
            BooleanSupplier mayAct,
            Clock clock) {
        this.ownership = new SlotOwnership(CoordinatorSlots.TRANSACTION, new SlotOwnership.SlotState() {
            @Override
            public void load(int slot) {
                slots.reload(slot);
            }

            @Override
            public void serving(int slot) {
                // As Apache's coordinator loading a partition: the prepared ones are completed, not waited for (their
                // markers may wait for partitions still moving; EndTxn retries and the sweep find them in flight).
                completion.completePrepared(slot);
            }

            @Override
            public void unload(int slot) {
                slots.unload(slot);
            }
        });
        if (peers != null) {
            ownership.coordinateWhenTaken(mayAct);
        }
        this.slots = new TransactionSlots(clusterDir, ownership);
        this.config = config;
        this.clock = clock;
        this.thread =
                Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-txn-coordinator", true));
        // The markers of one transaction are fsynced in parallel, one partition per thread: in series, a commit
        // over 8 partitions waited for 8 fsyncs one after another.
        this.markerSyncs = Executors.newFixedThreadPool(
                MARKER_SYNC_THREADS, new DefaultThreadFactory("kaas-txn-marker-sync", true));
        this.markers = new TransactionMarkerWriter(topics, groups, markerSyncs, thread, peers, clock);
        this.completion = new TransactionCompletion(slots, ownership, markers, groups, ids, clock, thread);
        this.sessions = new ProducerSessions(slots, ownership, ids, config, completion, clock);
        this.timeouts = new TransactionTimeouts(slots, ownership, completion, config, clock);
    }

    /**
     * Starts the timeout sweep. A broker on its own then coordinates at once: it loads every slot and completes each
     * transaction left in PREPARE_* (waiting for it, so the broker serves nothing half-visible). A broker sharing
     * its directory waits for {@link #takeCoordination}.
     */
    public void start() {
        if (ownership.coordinatingAll()) {
            List<CompletableFuture<TransactionRecord>> redo = new ArrayList<>();
            for (int slot = 0; slot < TransactionStateStore.SLOTS; slot++) {
                slots.reload(slot);
                redo.addAll(completion.completePrepared(slot));
            }
            TransactionCompletion.await(redo);
        }
        long every = config.abortSweepInterval().toMillis();
        thread.scheduleWithFixedDelay(timeouts::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * This broker becomes the coordinator of {@code slot}'s transactional ids in coordinator epoch {@code epoch} (before
     * FindCoordinator names it): re-reads the slot's file (its predecessor's writes) and starts completing the
     * transactions left prepared; does not wait for them.
     */
    public void takeCoordination(int slot, int epoch) {
        ownership.gain(slot, epoch);
        LOG.debug("coordinating transactional ids of slot {} in coordinator epoch {}", slot, epoch);
    }

    /**
     * Another broker coordinates {@code slot}'s transactional ids from now on: answer NOT_COORDINATOR and write nothing
     * more in its file. Returns once no write of the slot is under way.
     */
    public void giveUpCoordination(int slot) {
        ownership.lose(slot);
    }

    /** Whether this broker coordinates {@code transactionalId} now. */
    public boolean coordinates(String transactionalId) {
        return ownership.activeFor(transactionalId);
    }

    public void stop() {
        thread.shutdownNow();
        markerSyncs.shutdownNow();
    }

    public TransactionConfig config() {
        return config;
    }

    /** The marker writer, for WriteTxnMarkers (an operator aborting a hanging transaction, KIP-664). */
    public TransactionMarkerWriter markerWriter() {
        return markers;
    }

    // ---------------------------------------------------------------- InitProducerId

    /**
     * A new producer session for {@code transactionalId}: the epoch is bumped (zombies with the older one are
     * fenced); an open transaction is aborted first (answered CONCURRENT_TRANSACTIONS meanwhile, as Apache).
     * {@code expectedProducerId}/{@code expectedEpoch} are KIP-360's (-1 for a first call).
     */
    public InitResult initProducerId(
            String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch) {
        return sessions.initProducerId(transactionalId, timeoutMs, expectedProducerId, expectedEpoch);
    }

    // ---------------------------------------------------------------- AddPartitionsToTxn, AddOffsetsToTxn

    /** Adds partitions (v3 client form); NONE, or the error for every partition of the request. */
    public Errors addPartitions(
            String transactionalId, long producerId, short epoch, Collection<TxnPartition> partitions) {
        return add(transactionalId, producerId, epoch, partitions, null);
    }

    /**
     * Adds the group's offsets to the transaction: as Apache, its {@code __consumer_offsets} slot joins the
     * transaction's partitions ({@link TxnPartition#offsetsOf}), so the transaction's end sends it a marker.
     */
    public Errors addOffsets(String transactionalId, long producerId, short epoch, String groupId) {
        return add(transactionalId, producerId, epoch, List.of(TxnPartition.offsetsOf(groupId)), groupId);
    }

    private Errors add(
            String transactionalId, long producerId, short epoch, Collection<TxnPartition> partitions, String group) {
        return withProducer(transactionalId, producerId, epoch, (slot, cur) -> {
            if (cur.state().isPrepare()) {
                return Errors.CONCURRENT_TRANSACTIONS;
            }
            if (cur.state() == TxnState.ONGOING
                    && cur.partitions().containsAll(partitions)
                    && (group == null || cur.groups().contains(group))) {
                return Errors.NONE;
            }
            slots.put(slot, cur.withAdded(partitions, group, clock.millis()));
            return Errors.NONE;
        });
    }

    /**
     * A change to one transactional id, made inside a hold of its slot and under the slot's lock once the producer id
     * and epoch are its current ones.
     */
    private interface Change {
        Errors apply(int slot, TransactionRecord cur);
    }

    private Errors withProducer(String transactionalId, long producerId, short epoch, Change change) {
        int slot = TransactionStateStore.slotFor(transactionalId);
        try (SlotOwnership.Held held = ownership.hold(slot)) {
            if (!held.coordinating()) {
                return Errors.NOT_COORDINATOR;
            }
            synchronized (slots.lock(slot)) {
                TransactionRecord cur = slots.get(slot, transactionalId);
                Errors e = validateProducer(cur, producerId, epoch);
                return e != Errors.NONE ? e : change.apply(slot, cur);
            }
        }
    }

    /**
     * Whether {@code partition} is in the ongoing transaction (AddPartitionsToTxn v4+ verify_only, and Produce
     * before v12), as Apache's {@code handleVerifyPartitionsInTransaction}: TRANSACTION_ABORTABLE when it is not,
     * CONCURRENT_TRANSACTIONS while the transaction ends.
     */
    public Errors verify(String transactionalId, long producerId, short epoch, TxnPartition partition) {
        int slot = TransactionStateStore.slotFor(transactionalId);
        synchronized (slots.lock(slot)) {
            if (!ownership.active(slot)) {
                return Errors.NOT_COORDINATOR;
            }
            TransactionRecord cur = slots.get(slot, transactionalId);
            Errors e = validateProducer(cur, producerId, epoch);
            if (e != Errors.NONE) {
                return e;
            }
            if (cur.state().isPrepare()) {
                return Errors.CONCURRENT_TRANSACTIONS;
            }
            return cur.state() == TxnState.ONGOING && cur.partitions().contains(partition)
                    ? Errors.NONE
                    : Errors.TRANSACTION_ABORTABLE;
        }
    }

    static Errors validateProducer(TransactionRecord cur, long producerId, short epoch) {
        if (cur == null || cur.producerId() != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        return cur.producerEpoch() == epoch ? Errors.NONE : Errors.PRODUCER_FENCED;
    }

    // ---------------------------------------------------------------- EndTxn

    /** What EndTxn answers; from v5 (protocol v2) with the producer id and epoch the next transaction uses. */
    public record EndResult(Errors error, long producerId, short producerEpoch) {
        static EndResult failed(Errors e) {
            return new EndResult(e, -1, (short) -1);
        }

        static EndResult of(TransactionRecord r) {
            return new EndResult(Errors.NONE, r.producerId(), r.producerEpoch());
        }
    }

    /**
     * Commits or aborts ({@link EndTxnDecision}); completes once the markers and the COMPLETE_* state are durable.
     * {@code v2}: EndTxn v5, transaction protocol v2 (KIP-890 part 2).
     */
    public CompletableFuture<EndResult> endTxn(
            String transactionalId, long producerId, short epoch, boolean commit, boolean v2) {
        int slot = TransactionStateStore.slotFor(transactionalId);
        TransactionRecord prepared;
        try (SlotOwnership.Held held = ownership.hold(slot)) {
            if (!held.coordinating()) {
                return CompletableFuture.completedFuture(EndResult.failed(Errors.NOT_COORDINATOR));
            }
            synchronized (slots.lock(slot)) {
                TransactionRecord cur = slots.get(slot, transactionalId);
                long now = clock.millis();
                EndTxnDecision d = v2
                        ? EndTxnDecision.v2(cur, producerId, epoch, commit, now)
                        : EndTxnDecision.v1(cur, producerId, epoch, commit, now);
                if (d.answer() != null) {
                    return CompletableFuture.completedFuture(d.answer());
                }
                prepared = d.prepared();
                slots.put(slot, prepared);
            }
        }
        return completion.complete(prepared).handle((done, failure) -> {
            if (failure != null) {
                LOG.warn(
                        "transaction {}: writing its {} markers failed; retried by the sweep: {}",
                        transactionalId,
                        commit ? "COMMIT" : "ABORT",
                        failure.toString());
                // retriable: the client's retry sees the completed state
                return EndResult.failed(Errors.CONCURRENT_TRANSACTIONS);
            }
            return EndResult.of(done);
        });
    }

    // ---------------------------------------------------------------- timeouts

    /** One pass of the timeout sweep ({@link TransactionTimeouts}), as {@code kaas-txn-coordinator} runs it. */
    void sweep() {
        timeouts.sweep();
    }

    // ---------------------------------------------------------------- admin

    /** The state of every transactional id this broker coordinates (ListTransactions, as each Apache broker answers). */
    public List<TransactionRecord> all() {
        return slots.all().stream()
                .filter(r -> coordinates(r.transactionalId()))
                .toList();
    }

    /** DescribeTransactions; empty as well when this broker does not coordinate it ({@link #coordinates}). */
    public Optional<TransactionRecord> describe(String transactionalId) {
        return coordinates(transactionalId) ? slots.describe(transactionalId) : Optional.empty();
    }
}
