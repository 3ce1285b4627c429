package io.kaas.storage;

import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.TxnIndex;
import java.nio.ByteBuffer;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * One partition. Start reading at {@link #append} and follow one batch to its fsync.
 *
 * <p>Its parts: {@link PartitionCore} owns the lock, the state it guards ({@link GuardedState}), the
 * sticky failure, the closed flag and the {@link PartitionView} lock-free readers see. Each job that
 * needs the lock is a collaborator the core hands the guarded state to while it holds the lock:
 * {@link Appender} (the locked half of an append), {@link CommitterBridge} (group commit, checkpoint
 * refresh), {@link LogStartMover} (DeleteRecords, retention), {@link CleanedGroupSwap} (compaction's
 * swap), {@link PartitionShutdown} (close, abandon). Reads and lookups ({@link PartitionReads}) and the
 * read_committed and DescribeProducers facts work on the published view and take no lock.
 *
 * <p>Durability promise: an append acknowledged under {@link Acks#ALL} (flush interval 1, the default)
 * is in the log and fsynced; its segment's directory entry was fsynced when the segment was created.
 */
public final class Partition implements PartitionLog {
    private final TopicPartition id;
    private final Path dir;
    private final RecoveryReport openReport;
    private final PartitionCore core;
    private final Appender appender;
    private final CommitterBridge commits;
    private final LogStartMover logStart;
    private final PartitionCleaning cleaning;
    private final PartitionShutdown shutdown;
    private final PartitionReads reads;
    private final HighWatermarkWaiters hwmWaiters;
    /**
     * Set by a log dir move before it closes this partition: the partition reopened in its new dir. A caller still
     * holding this one (an append, a Fetch on the old view) goes on there instead of failing.
     */
    private volatile CompletableFuture<Partition> successor;

    /** Called by {@link PartitionLoader} once the lock is held, recovery ran and the segments are open. */
    Partition(
            TopicPartition id,
            Path dir,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            OwnerLock owner,
            RecoveryScan.RecoveredState recovered,
            SegmentLog log,
            EngineObserver observer) {
        this.id = id;
        this.dir = dir;
        this.openReport = recovered.outcome().report();
        PartitionStateFiles stateFiles = new PartitionStateFiles(dir);
        // RecoveryScan.recoverState wrote the snapshots, then the checkpoint at EOF, if it scanned a tail.
        CheckpointKeeper checkpoints = new CheckpointKeeper(
                id,
                stateFiles,
                config.checkpointIntervalBytes(),
                new RecoveryCheckpoint(log.active().baseOffset(), log.active().size(), log.nextOffset()));
        this.core = new PartitionCore(
                id,
                new GuardedState(
                        log,
                        recovered.producers(),
                        recovered.txns(),
                        checkpoints,
                        stateFiles,
                        recovered.outcome().epoch(),
                        recovered.outcome().logStartOffset(),
                        topicConfig));
        this.appender = new Appender(id, config, core, observer);
        this.commits = new CommitterBridge(id, core, executors, observer);
        this.logStart = new LogStartMover(id, dir, core);
        CleanedGroupSwap swap = new CleanedGroupSwap(id, dir, core, observer);
        this.cleaning = new PartitionCleaning(swap, core::closed, id, dir, config.indexIntervalBytes(), observer);
        this.reads = new PartitionReads(id, core::view, core::closed, dir.getFileSystem() == FileSystems.getDefault());
        this.hwmWaiters = new HighWatermarkWaiters(() -> core.view().state().highWatermark());
        this.shutdown = new PartitionShutdown(id, core, commits, owner, hwmWaiters);
    }

    /**
     * Opens the partition in {@code dir} (created if missing) on its own, outside an engine (tests,
     * benchmarks): takes {@code <partition>/.lock} (refused while a running engine holds the data
     * directory's), runs the recovery scan, loads idempotence and transaction state and replays the
     * scanned tail onto it. See {@link PartitionLoader}.
     */
    public static Partition open(
            Path dir, TopicPartition id, EngineConfig config, TopicConfig topicConfig, EngineExecutors executors) {
        return PartitionLoader.loadAlone(dir, id, config, topicConfig, executors);
    }

    // ---------------------------------------------------------------- append path

    @Override
    public CompletableFuture<AppendResult> append(ByteBuffer batches, Acks acks, int leaderEpoch) {
        return append(batches, acks, leaderEpoch, false);
    }

    /**
     * {@link #append}, or null (nothing done) when it could block this thread: the lock is held by
     * another thread (a committer's checkpoint refresh, a roll, a close), a roll is due (a roll fsyncs
     * the old segment), or the active segment's log or index channel is closed (opening one may make the
     * handle cache evict, which may fsync another file). Never fsyncs on the calling thread: a flush the
     * append asks for goes to a committer. For acks=0/1 on a network event loop.
     */
    @Override
    public CompletableFuture<AppendResult> appendWithoutBlocking(ByteBuffer batches, Acks acks, int leaderEpoch) {
        return append(batches, acks, leaderEpoch, true);
    }

    /**
     * One append, in four steps: (1) parse and check the batches on the caller's thread, outside the lock
     * ({@link ProducedBatches#parse}: header, CRC-32C); (2) under the lock, {@link Appender#append}: the
     * epoch fence, idempotence, a roll when due, the write, the flush trigger, and the new view published
     * as the lock is let go; (3) wake Fetch long-polls; (4) for acks=all, wait for the
     * {@link GroupCommitter} fsync that covers this append (it runs on a committer thread, outside the lock).
     */
    private CompletableFuture<AppendResult> append(
            ByteBuffer batches, Acks acks, int leaderEpoch, boolean mustNotBlock) {
        CompletableFuture<Partition> next = successor;
        if (next != null && core.closed()) {
            return appendOn(next, batches, acks, leaderEpoch, mustNotBlock);
        }
        ByteBuffer again = batches.duplicate();
        CompletableFuture<AppendResult> r = appendHere(batches, acks, leaderEpoch, mustNotBlock);
        next = successor;
        if (next != null && r != null && r.isCompletedExceptionally() && core.closed()) {
            return appendOn(next, again, acks, leaderEpoch, mustNotBlock); // closed by the move while it waited
        }
        return r;
    }

    /** An append that came after a move closed this partition: on the new one, once it is open. */
    private static CompletableFuture<AppendResult> appendOn(
            CompletableFuture<Partition> next, ByteBuffer batches, Acks acks, int leaderEpoch, boolean mustNotBlock) {
        if (next.isDone() && !next.isCompletedExceptionally()) {
            return next.join().append(batches, acks, leaderEpoch, mustNotBlock);
        }
        if (mustNotBlock) {
            return null;
        }
        return next.thenCompose(p -> p.append(batches, acks, leaderEpoch, false));
    }

    private CompletableFuture<AppendResult> appendHere(
            ByteBuffer batches, Acks acks, int leaderEpoch, boolean mustNotBlock) {
        ProducedBatches parsed;
        try {
            parsed = ProducedBatches.parse(batches);
        } catch (CorruptBatchException e) {
            return CompletableFuture.failedFuture(e);
        }
        Appender.Appended appended;
        try {
            appended = mustNotBlock
                    ? core.changeIfFree(g -> appender.append(g, parsed, leaderEpoch, true))
                    : core.change(g -> appender.append(g, parsed, leaderEpoch, false));
        } catch (StorageException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (appended == null) {
            return null; // it would have blocked: nothing done, the caller appends on a thread that may block
        }
        hwmWaiters.wake();
        if (appended.flushRequested()) {
            commits.request();
        }
        AppendResult result = appended.result();
        // A duplicate waits too: the original may still be on its way to the disk.
        if (acks == Acks.ALL && (appended.flushRequested() || result.duplicate())) {
            return commits.await(appended.flushSeq()).thenApply(v -> result);
        }
        return CompletableFuture.completedFuture(result);
    }

    @Override
    public void flush() {
        live().commits.flushNow();
    }

    // ---------------------------------------------------------------- log start, compaction, topic config

    @Override
    public long deleteRecords(long offset) {
        return live().logStart.deleteRecords(offset);
    }

    /** One retention pass: see {@link LogStartMover#runRetention}. Returns how many segments went. */
    int runRetention(long nowMs) {
        return logStart.runRetention(nowMs);
    }

    /** One cleaning pass if this partition's topic is compacted and a pass is due: see {@link PartitionCleaning}. */
    Optional<CleanReport> cleanIfDue(CleanerSettings settings, long nowMs, BooleanSupplier stopped) {
        return cleaning.cleanIfDue(settings, nowMs, stopped);
    }

    void updateTopicConfig(TopicConfig config) {
        core.change(g -> {
            g.setTopicConfig(config);
            return null;
        });
    }

    // ---------------------------------------------------------------- reads: the published view, no lock

    @Override
    public FetchResult read(long fetchOffset, ReadLimit limit, long readCap) {
        return readLive(fetchOffset, limit, readCap, false);
    }

    @Override
    public FetchResult readForTransfer(long fetchOffset, ReadLimit limit, long readCap) {
        return readLive(fetchOffset, limit, readCap, true);
    }

    /**
     * A read on this partition, or, once a log dir move closed it, on the one that took its place. A read on the
     * old view that met a segment the move closed under it reads again there; while the new one is not open yet
     * it is told CLOSED (a client retries), never that its offset went.
     */
    private FetchResult readLive(long fetchOffset, ReadLimit limit, long readCap, boolean forTransfer) {
        Partition live = live();
        try {
            return live.reads.read(fetchOffset, limit, readCap, forTransfer);
        } catch (StorageException e) {
            if (live.successor == null || !live.core.closed()) {
                throw e;
            }
            Partition next = live.live();
            if (next == live) {
                throw new StorageException(StorageException.Kind.CLOSED, id + " is moving to another log dir", e);
            }
            return next.readLive(fetchOffset, limit, readCap, forTransfer);
        }
    }

    /** This partition, or the one a completed log dir move put in its place (the newest of a chain of moves). */
    private Partition live() {
        Partition p = this;
        while (true) {
            CompletableFuture<Partition> next = p.successor;
            if (next == null || !p.core.closed() || !next.isDone() || next.isCompletedExceptionally()) {
                return p;
            }
            p = next.join();
        }
    }

    /** A log dir move is about to close this partition: see {@link #successor}. */
    void handOverTo(CompletableFuture<Partition> next) {
        successor = next;
    }

    @Override
    public PartitionState state() {
        return live().core.view().state();
    }

    @Override
    public Optional<StorageException> failure() {
        return core.failure();
    }

    @Override
    public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
        return live().hwmWaiters.awaitAbove(offset);
    }

    /** Fetch long-polls currently parked on this partition (a leak check for tests). */
    int pendingHighWatermarkWaiters() {
        return hwmWaiters.size();
    }

    @Override
    public Optional<StoredBatch> firstBatchWithMaxTimestampAtLeast(long timestamp, long fromOffset) {
        return live().reads.firstBatchWithMaxTimestampAtLeast(timestamp, fromOffset);
    }

    @Override
    public Optional<StoredBatch> firstBatchWithMaxTimestamp() {
        return live().reads.firstBatchWithMaxTimestamp();
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int requested) {
        return live().reads.endOffsetForEpoch(requested);
    }

    /** From the published view: a read_committed Fetch takes no lock (see {@link PartitionView}). */
    @Override
    public List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound) {
        return TxnIndex.overlapping(live().core.view().abortedRanges(), fetchOffset, upperBound);
    }

    /** From the published view ({@link ProducerStatuses}): DescribeProducers takes no lock. */
    @Override
    public List<ProducerStatus> producers() {
        return live().core.view().producers().list();
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public TopicPartition id() {
        return id;
    }

    public Path dir() {
        return dir;
    }

    /** What the recovery scan at open found and did (bytes scanned, truncations, rebuilt indexes). */
    public RecoveryReport openReport() {
        return openReport;
    }

    /** The core, so a test in this package can hold the partition lock and show who waits for it. */
    PartitionCore core() {
        return core;
    }

    /** fsyncs issued by the committer so far (tests and benchmarks count them). */
    public long fsyncCount() {
        return commits.fsyncCount();
    }

    /**
     * Its log dir went offline ({@link LogDirFailures}): fails it now, without its lock (an appender may be stuck
     * on the disk): every later call throws {@code why}, and an append waiting for an fsync is never acknowledged.
     */
    void failOffline(StorageException why) {
        core.fail(why);
        commits.failAll(why);
    }

    /** See {@link PartitionShutdown#abandon}: closes without writing to the partition's files. */
    public void abandon() {
        shutdown.abandon();
    }

    /** See {@link PartitionShutdown#close}: a clean close, so the next open scans nothing. */
    @Override
    public void close() {
        shutdown.close();
    }
}
