package io.kaas.broker.txn;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.group.OffsetStore;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator (KIP-98; both protocols: v1, and v2 of KIP-890 part 2 for EndTxn v5). A broker on its own
 * coordinates every transactional id; with several brokers each id's slot has one coordinator. See {@link TxnState}
 * for the state machine.
 *
 * <p><b>Durability order</b>: every change is written to its slot file ({@link TransactionStateStore})
 * before it is answered or acted on. Ending a transaction: PREPARE_* written → markers appended and
 * fsynced on every partition, and sent to the coordinator of each group slot in it, which commits or drops the
 * offsets TxnOffsetCommit staged there ({@link TransactionMarkerWriter}) → COMPLETE_* written → EndTxn answered. A crash anywhere leaves PREPARE_* (redone
 * at {@link #start}: markers and offsets are idempotent) or COMPLETE_*; an ONGOING transaction is aborted
 * by the timeout sweep once its timeout passes, so none blocks a partition's last stable offset forever.
 *
 * <p><b>Several brokers over one directory</b>: transactional ids are spread over the {@code __transaction_state}
 * slots, each coordinated by one broker at a time (the one FindCoordinator names). A broker acts for a slot only
 * while it {@link #takeCoordination took} that slot's coordination and its
 * self-fence allows; otherwise every call answers NOT_COORDINATOR and nothing is written, so an ex-coordinator
 * never overwrites a slot file its successor owns. Taking coordination re-reads every slot file its predecessor
 * wrote and completes the transactions left prepared, as Apache's coordinator does when it loads a
 * {@code __transaction_state} partition; ongoing ones stay open (the producer may still end them) until their timeout.
 *
 * <p>Thread-safe: each slot has a monitor guarding its transactions and its file (so files are written in
 * change order); marker writes run outside it. Owns {@code kaas-txn-coordinator} (timeout sweep, expiration,
 * completions) and {@code kaas-txn-marker-sync-*} (the fsyncs of markers, partitions in parallel), stopped by
 * {@link #stop}.
 */
public final class TransactionCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    private static final long START_COMPLETION_TIMEOUT_SECONDS = 60;
    private static final int MARKER_SYNC_THREADS = 4;

    /** What InitProducerId answers. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult failed(Errors e) {
            return new InitResult(e, -1, (short) -1);
        }
    }

    private final TransactionSlots slots;
    private final ProducerIdAllocator ids;
    private final GroupCoordinator groups;
    private final TransactionConfig config;
    private final LongSupplier clock;
    private final ScheduledExecutorService thread;
    private final ExecutorService markerSyncs;
    private final TransactionMarkerWriter markers;
    /** Transactions whose markers are being written, so a sweep or retry never drives one twice. */
    private final Map<String, CompletableFuture<TransactionRecord>> completing = new ConcurrentHashMap<>();
    /** The self-fence of a broker sharing its directory (always true on its own). */
    private final BooleanSupplier mayAct;
    /** Whether this broker coordinates every transactional id (on its own); with others, only the slots in {@link #held}. */
    private final boolean coordinatingAll;
    /** The slots this broker coordinates (several brokers over one directory), with the coordinator epoch it won. */
    private final Map<Integer, Integer> held = new ConcurrentHashMap<>();

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
        this.slots = new TransactionSlots(clusterDir);
        this.ids = ids;
        this.groups = groups;
        this.config = config;
        this.clock = System::currentTimeMillis;
        this.thread =
                Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-txn-coordinator", true));
        // The markers of one transaction are fsynced in parallel, one partition per thread: in series, a commit
        // over 8 partitions waited for 8 fsyncs one after another.
        this.markerSyncs = Executors.newFixedThreadPool(
                MARKER_SYNC_THREADS, new DefaultThreadFactory("kaas-txn-marker-sync", true));
        this.markers = new TransactionMarkerWriter(topics, groups, markerSyncs, thread, peers);
        this.mayAct = mayAct;
        this.coordinatingAll = peers == null;
    }

    /**
     * Starts the timeout sweep. A broker on its own then coordinates at once: it loads every slot and completes each
     * transaction left in PREPARE_* (waiting for it, so the broker serves nothing half-visible). A broker sharing
     * its directory waits for {@link #takeCoordination}.
     */
    public void start() {
        if (coordinatingAll) {
            List<CompletableFuture<TransactionRecord>> redo = new ArrayList<>();
            for (int slot = 0; slot < TransactionStateStore.SLOTS; slot++) {
                redo.addAll(load(slot));
            }
            awaitCompletions(redo);
        }
        long every = config.abortSweepInterval().toMillis();
        thread.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * This broker becomes the coordinator of {@code slot}'s transactional ids in coordinator epoch {@code epoch} (before
     * FindCoordinator names it): re-reads the slot's file (its predecessor's writes) and starts completing the
     * transactions left prepared, as Apache's coordinator does when it loads a {@code __transaction_state} partition;
     * does not wait for them (the markers may wait for partitions still moving; EndTxn retries and the sweep find
     * them in flight).
     */
    public void takeCoordination(int slot, int epoch) {
        List<TransactionRecord> prepared = new ArrayList<>();
        synchronized (slots.lock(slot)) {
            for (TransactionRecord r : slots.reload(slot)) {
                if (r.state().isPrepare()) {
                    prepared.add(r);
                }
            }
            held.put(slot, epoch);
        }
        for (TransactionRecord r : prepared) {
            LOG.info(
                    "completing transaction {} left in {} (producer {} epoch {})",
                    r.transactionalId(),
                    r.state(),
                    r.producerId(),
                    r.producerEpoch());
            complete(r);
        }
        LOG.debug("coordinating transactional ids of slot {} in coordinator epoch {}", slot, epoch);
    }

    /**
     * Another broker coordinates {@code slot}'s transactional ids from now on: answer NOT_COORDINATOR and write nothing
     * more in its file. Returns once no write of the slot is under way (each holds the slot's lock).
     */
    public void giveUpCoordination(int slot) {
        synchronized (slots.lock(slot)) {
            held.remove(slot);
        }
    }

    /** Whether this broker coordinates the transactional ids of {@code slot} now (and its self-fence allows it to act). */
    private boolean active(int slot) {
        return (coordinatingAll || held.containsKey(slot)) && mayAct.getAsBoolean();
    }

    /** Whether this broker coordinates {@code transactionalId} now. */
    public boolean coordinates(String transactionalId) {
        return active(TransactionStateStore.slotFor(transactionalId));
    }

    /** The coordinator epoch of {@code slot} here (0 on its own): what the transaction markers carry. */
    private int coordinatorEpoch(int slot) {
        return held.getOrDefault(slot, 0);
    }

    /** Replaces the slot's records in memory with its file's; completions of the PREPARE_* ones, started. */
    private List<CompletableFuture<TransactionRecord>> load(int slot) {
        List<CompletableFuture<TransactionRecord>> redo = new ArrayList<>();
        for (TransactionRecord r : slots.reload(slot)) {
            if (r.state().isPrepare()) {
                LOG.info(
                        "completing transaction {} left in {} (producer {} epoch {})",
                        r.transactionalId(),
                        r.state(),
                        r.producerId(),
                        r.producerEpoch());
                redo.add(complete(r));
            }
        }
        return redo;
    }

    private static void awaitCompletions(List<CompletableFuture<TransactionRecord>> redo) {
        for (CompletableFuture<TransactionRecord> f : redo) {
            try {
                // Bounded: a stalled disk must not hold the broker's start forever (the sweep retries it).
                f.get(START_COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                LOG.error("a transaction left prepared could not be completed now; the timeout sweep retries it", e);
            }
        }
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
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeout().toMillis()) {
            return InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT);
        }
        int slot = TransactionStateStore.slotFor(transactionalId);
        TransactionRecord fencing;
        synchronized (slots.lock(slot)) {
            if (!active(slot)) {
                return InitResult.failed(Errors.NOT_COORDINATOR);
            }
            long now = clock.getAsLong();
            TransactionRecord cur = slots.get(slot, transactionalId);
            if (cur == null) {
                TransactionRecord fresh = TransactionRecord.fresh(transactionalId, ids.allocate(), timeoutMs, now);
                put(slot, fresh);
                return new InitResult(Errors.NONE, fresh.producerId(), fresh.producerEpoch());
            }
            boolean expected = expectedProducerId >= 0;
            if (expected && expectedProducerId != cur.producerId()) {
                return InitResult.failed(Errors.PRODUCER_FENCED);
            }
            switch (cur.state()) {
                case PREPARE_COMMIT, PREPARE_ABORT:
                    return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
                case ONGOING:
                    fencing = prepareFencingAbort(slot, cur, now);
                    break;
                default:
                    TransactionRecord next = nextSession(cur, expected ? expectedEpoch : null, timeoutMs, now);
                    if (next == null) {
                        return InitResult.failed(Errors.PRODUCER_FENCED);
                    }
                    if (next != cur) {
                        put(slot, next);
                    }
                    return new InitResult(Errors.NONE, next.producerId(), next.producerEpoch());
            }
        }
        complete(fencing);
        return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
    }

    /**
     * Apache's {@code prepareIncrementProducerEpoch}: without an expected epoch, a bump that forgets the previous
     * epoch (so an older session's KIP-360 retry is fenced); with the current epoch, a bump remembering it; with
     * the previous epoch, a retry of a bump whose answer was lost: {@code cur} unchanged. Null: fenced. An
     * exhausted epoch moves to a new producer id.
     */
    private TransactionRecord nextSession(TransactionRecord cur, Short expectedEpoch, int timeoutMs, long now) {
        if (expectedEpoch != null && expectedEpoch != cur.producerEpoch()) {
            return expectedEpoch == cur.lastProducerEpoch() ? cur : null;
        }
        if (cur.producerEpoch() >= Short.MAX_VALUE - 1) {
            return cur.nextSession(ids.allocate(), (short) 0, (short) -1, timeoutMs, now);
        }
        short last = expectedEpoch == null ? -1 : cur.producerEpoch();
        return cur.nextSession(cur.producerId(), (short) (cur.producerEpoch() + 1), last, timeoutMs, now);
    }

    /** PREPARE_ABORT with the epoch bumped, so the markers fence the old session everywhere. Holds the slot lock. */
    private TransactionRecord prepareFencingAbort(int slot, TransactionRecord cur, long now) {
        short epoch =
                cur.producerEpoch() >= Short.MAX_VALUE - 1 ? cur.producerEpoch() : (short) (cur.producerEpoch() + 1);
        TransactionRecord next = cur.prepared(false, epoch, (short) -1, now);
        put(slot, next);
        return next;
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
            put(slot, cur.withAdded(partitions, group, clock.getAsLong()));
            return Errors.NONE;
        });
    }

    /** A change to one transactional id, made under its slot's lock once the producer id and epoch are its current ones. */
    private interface Change {
        Errors apply(int slot, TransactionRecord cur);
    }

    private Errors withProducer(String transactionalId, long producerId, short epoch, Change change) {
        int slot = TransactionStateStore.slotFor(transactionalId);
        synchronized (slots.lock(slot)) {
            if (!active(slot)) {
                return Errors.NOT_COORDINATOR;
            }
            TransactionRecord cur = slots.get(slot, transactionalId);
            Errors e = validateProducer(cur, producerId, epoch);
            return e != Errors.NONE ? e : change.apply(slot, cur);
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
            if (!active(slot)) {
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
        synchronized (slots.lock(slot)) {
            if (!active(slot)) {
                return CompletableFuture.completedFuture(EndResult.failed(Errors.NOT_COORDINATOR));
            }
            TransactionRecord cur = slots.get(slot, transactionalId);
            long now = clock.getAsLong();
            EndTxnDecision d = v2
                    ? EndTxnDecision.v2(cur, producerId, epoch, commit, now)
                    : EndTxnDecision.v1(cur, producerId, epoch, commit, now);
            if (d.answer() != null) {
                return CompletableFuture.completedFuture(d.answer());
            }
            prepared = d.prepared();
            put(slot, prepared);
        }
        return complete(prepared).handle((done, failure) -> {
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

    /**
     * Drives a PREPARE_* transaction to COMPLETE_*: markers, then (commit) the staged offsets, then the
     * COMPLETE_* state, which the future returns. Joins the run already in flight for the same transactional id, if any.
     */
    private CompletableFuture<TransactionRecord> complete(TransactionRecord prepared) {
        CompletableFuture<TransactionRecord> mine = new CompletableFuture<>();
        CompletableFuture<TransactionRecord> running = completing.putIfAbsent(prepared.transactionalId(), mine);
        if (running != null) {
            return running;
        }
        CompletableFuture<TransactionRecord> run;
        try {
            run = markers.write(
                            prepared.producerId(),
                            prepared.producerEpoch(),
                            prepared.commits(),
                            prepared.partitions(),
                            coordinatorEpoch(TransactionStateStore.slotFor(prepared.transactionalId())))
                    .thenApplyAsync(v -> finish(prepared), thread);
        } catch (RuntimeException e) {
            run = CompletableFuture.failedFuture(e);
        }
        run.whenComplete((done, e) -> {
            completing.remove(prepared.transactionalId(), mine);
            if (e != null) {
                mine.completeExceptionally(e);
            } else {
                mine.complete(done);
            }
        });
        return mine;
    }

    private TransactionRecord finish(TransactionRecord prepared) {
        int slot = TransactionStateStore.slotFor(prepared.transactionalId());
        if (!active(slot)) {
            // The next coordinator completes it from the slot file; offsets and state are its to write now.
            throw new IllegalStateException(
                    "transaction " + prepared.transactionalId() + ": no longer its coordinator");
        }
        // Offsets staged here by an earlier kaas (before they moved to the group coordinator): committed as then.
        if (prepared.commits() && !prepared.offsets().isEmpty()) {
            Map<String, List<OffsetStore.Committed>> byGroup = new LinkedHashMap<>();
            for (StagedOffset o : prepared.offsets()) {
                byGroup.computeIfAbsent(o.groupId(), g -> new ArrayList<>())
                        .add(new OffsetStore.Committed(
                                o.topic(),
                                o.partition(),
                                o.offset(),
                                o.leaderEpoch(),
                                o.metadata(),
                                o.commitTimestamp()));
            }
            byGroup.forEach(groups::commitTransactional);
        }
        synchronized (slots.lock(slot)) {
            if (!active(slot)) {
                throw new IllegalStateException(
                        "transaction " + prepared.transactionalId() + ": no longer its coordinator");
            }
            TransactionRecord cur = slots.get(slot, prepared.transactionalId());
            if (cur != null
                    && cur.state() == prepared.state()
                    && cur.producerId() == prepared.producerId()
                    && cur.producerEpoch() == prepared.producerEpoch()) {
                TransactionRecord done =
                        cur.completed(cur.rotatesProducerId() ? ids.allocate() : -1, clock.getAsLong());
                put(slot, done);
                return done;
            }
            return cur != null ? cur : prepared;
        }
    }

    // ---------------------------------------------------------------- timeouts

    /**
     * Aborts (with a bumped epoch, fencing the producer) every ONGOING transaction past its timeout; retries stuck
     * PREPARE_* ones; forgets expired transactional ids ({@link #expire}).
     */
    void sweep() {
        try {
            long now = clock.getAsLong();
            List<TransactionRecord> toComplete = new ArrayList<>();
            for (int slot = 0; slot < TransactionStateStore.SLOTS; slot++) {
                synchronized (slots.lock(slot)) {
                    if (!active(slot)) {
                        continue;
                    }
                    expire(slot, now);
                    for (TransactionRecord r : slots.values(slot)) {
                        if (r.state() == TxnState.ONGOING && now - r.startTimestamp() > r.timeoutMs()) {
                            LOG.info(
                                    "aborting transaction {} (producer {} epoch {}): open longer than its timeout of {} ms",
                                    r.transactionalId(),
                                    r.producerId(),
                                    r.producerEpoch(),
                                    r.timeoutMs());
                            toComplete.add(prepareFencingAbort(slot, r, now));
                        } else if (r.state().isPrepare() && !completing.containsKey(r.transactionalId())) {
                            toComplete.add(r);
                        }
                    }
                }
            }
            toComplete.forEach(r -> complete(r).exceptionally(e -> {
                LOG.warn(
                        "transaction {}: completing failed, retried next sweep: {}", r.transactionalId(), e.toString());
                return null;
            }));
        } catch (RuntimeException e) {
            LOG.warn("transaction timeout sweep failed", e);
        }
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

    /**
     * Apache's {@code transactional.id.expiration.ms}: an id with nothing open or completing (EMPTY, COMPLETE_COMMIT,
     * COMPLETE_ABORT) whose state has not changed for that long is removed from its slot file, then from memory.
     * Its producer id is forgotten with it: a later call with it gets INVALID_PRODUCER_ID_MAPPING, and
     * InitProducerId starts the id afresh. Holds the slot lock.
     */
    private void expire(int slot, long now) {
        long before = now - config.idExpiration().toMillis();
        List<String> gone = slots.removeWhere(
                slot,
                r -> (r.state() == TxnState.EMPTY
                                || r.state() == TxnState.COMPLETE_COMMIT
                                || r.state() == TxnState.COMPLETE_ABORT)
                        && r.lastUpdateTimestamp() <= before
                        && !completing.containsKey(r.transactionalId()));
        if (!gone.isEmpty()) {
            LOG.info(
                    "transactional ids expired after {} ms without use: {}",
                    config.idExpiration().toMillis(),
                    gone);
        }
    }

    /** Writes the slot with {@code next} in it, then makes {@code next} current. Holds the slot lock. */
    private void put(int slot, TransactionRecord next) {
        if (!active(slot)) {
            // Last line of defence: the checks above answer NOT_COORDINATOR before anything is changed.
            throw new IllegalStateException(
                    "transaction " + next.transactionalId() + ": this broker no longer coordinates it");
        }
        slots.put(slot, next);
    }
}
