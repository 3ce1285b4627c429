package io.kaas.storage;

import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.cleaner.CleanableLog;
import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition: the write path under one lock, an immutable {@link PartitionView} for lock-free
 * readers, and a {@link GroupCommitter} doing the fsyncs. Start reading at {@link #append}.
 *
 * <p>The other jobs live beside it: reads and lookups in {@link PartitionReads}, the log-start rule in
 * {@link LogStartRule} and the unlink in {@link RemovedSegments}, the state files and their
 * ordering in {@link PartitionStateFiles}, Fetch long-polls in {@link HighWatermarkWaiters}.
 *
 * <p>Durability promise: an append acknowledged under {@link Acks#ALL} (flush interval 1, the default)
 * is in the log and fsynced; its segment's directory entry was fsynced when the segment was created.
 */
public final class Partition implements PartitionLog {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);
    private final TopicPartition id;
    private final Path dir;
    private final EngineConfig config;
    private final OwnerLock owner;
    private final GroupCommitter committer;
    private final PartitionStateFiles stateFiles;
    private final PartitionReads reads;
    private final HighWatermarkWaiters hwmWaiters;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock.
    private final SegmentLog log;
    private final ProducerStateTable producers;
    private final TxnIndex txns;
    private long logStartOffset;
    private final int epoch;
    private long pendingMessages;
    private TopicConfig topicConfig;
    private AppendTimestamps timestamps;
    private final CheckpointKeeper checkpoints;
    /** What manifest.json holds (recovery or the loader left it so): close skips an unchanged one. */
    private Manifest manifestOnDisk;

    /** Written under lock, read lock-free by the committer to decide whether to run. */
    private volatile long requestedFlushSeq;
    /** Written under lock, read lock-free by readers (a read that lost a segment retries unless closed). */
    private volatile boolean closed;

    private volatile PartitionView view;
    /** Set once by an fsync failure or stall; every later append fails fast with it. */
    private volatile StorageException sticky;

    private final RecoveryReport openReport;
    private final EngineObserver observer;
    private final PartitionCleaning cleaning;

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
        this.config = config;
        this.topicConfig = topicConfig;
        this.timestamps = AppendTimestamps.of(topicConfig);
        this.log = log;
        this.logStartOffset = recovered.outcome().logStartOffset();
        this.owner = owner;
        this.producers = recovered.producers();
        this.txns = recovered.txns();
        txns.dropAbortedBelow(logStartOffset); // a replayed tail may bring back ranges an earlier purge forgot
        this.epoch = recovered.outcome().epoch();
        this.openReport = recovered.outcome().report();
        this.stateFiles = new PartitionStateFiles(dir);
        this.reads = new PartitionReads(id, () -> view, () -> closed, dir.getFileSystem() == FileSystems.getDefault());
        this.hwmWaiters = new HighWatermarkWaiters(() -> view.state().highWatermark());
        this.observer = observer;
        this.committer = new GroupCommitter(new CommitterLog(), executors.committerPool(), executors.watchdog());
        // RecoveryScan.recoverState wrote the snapshots, then the checkpoint at EOF, if it scanned a tail.
        this.checkpoints = new CheckpointKeeper(
                id,
                stateFiles,
                config.checkpointIntervalBytes(),
                new RecoveryCheckpoint(log.active().baseOffset(), log.active().size(), log.nextOffset()));
        this.manifestOnDisk = new Manifest(epoch, log.nextOffset(), logStartOffset);
        this.cleaning = new PartitionCleaning(this, id, dir, config.indexIntervalBytes(), observer);
        publish();
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

    private CompletableFuture<AppendResult> append(
            ByteBuffer batches, Acks acks, int leaderEpoch, boolean mustNotBlock) {
        // Validation is CPU work on the caller's thread, outside the lock.
        ProducedBatches parsed;
        try {
            parsed = ProducedBatches.parse(batches);
        } catch (CorruptBatchException e) {
            return CompletableFuture.failedFuture(e);
        }
        AppendResult result;
        long flushSeq;
        boolean triggered = false;
        if (mustNotBlock) {
            if (!lock.tryLock()) {
                return null;
            }
        } else {
            lock.lock();
        }
        Segment.ChannelHold held = null;
        try {
            ensureOpen();
            if (leaderEpoch >= 0 && leaderEpoch < epoch) {
                throw new StorageException(
                        StorageException.Kind.FENCED_LEADER_EPOCH,
                        id + ": leader epoch " + leaderEpoch + " is older than the partition's " + epoch);
            }
            Optional<AppendResult> duplicate = classify(parsed);
            if (duplicate.isPresent()) {
                result = duplicate.get();
            } else {
                long now = now();
                timestamps.check(id, parsed.headers(), now);
                if (mustNotBlock) {
                    if (rollDue(parsed.totalBytes())
                            || (held = log.active()
                                            .holdChannelsIfOpen(
                                                    parsed.buffer(),
                                                    parsed.starts(),
                                                    parsed.headers().size()))
                                    == null) {
                        return null; // nothing written, no state changed: the caller appends on a thread that may block
                    }
                } else {
                    maybeRoll(parsed.totalBytes());
                }
                result = write(parsed, timestamps.logAppendTime(now));
                pendingMessages += parsed.recordCount();
                if (pendingMessages >= flushInterval()) {
                    pendingMessages = 0;
                    requestedFlushSeq++;
                    triggered = true;
                }
            }
            flushSeq = requestedFlushSeq;
        } catch (StorageException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            if (held != null) {
                held.close();
            }
            lock.unlock();
        }
        hwmWaiters.wake();
        if (triggered) {
            committer.request();
        }
        // A duplicate waits too: the original may still be on its way to the disk.
        if (acks == Acks.ALL && (triggered || result.duplicate())) {
            return committer.await(flushSeq).thenApply(v -> result);
        }
        return CompletableFuture.completedFuture(result);
    }

    /** Idempotence: empty to append; a result for a duplicate; throws for fenced or out-of-order. Holds lock. */
    private Optional<AppendResult> classify(ProducedBatches parsed) {
        List<RecordBatchHeader> headers = parsed.headers();
        for (RecordBatchHeader h : headers) {
            if (h.hasProducerId() && headers.size() > 1) {
                throw new CorruptBatchException(
                        CorruptBatchException.Reason.BAD_RECORD_COUNT,
                        -1,
                        "an idempotent or transactional produce must carry exactly one batch, got " + headers.size());
            }
        }
        RecordBatchHeader h = headers.get(0);
        ProducerStateTable.Classification c = producers.classify(h, parsed.buffer(), parsed.starts()[0]);
        switch (c.verdict()) {
            case APPEND:
                return Optional.empty();
            case DUPLICATE:
                return Optional.of(new AppendResult(
                        c.duplicateOf().baseOffset(),
                        c.duplicateOf().baseOffset() + h.lastOffsetDelta(),
                        logStartOffset,
                        true));
            case FENCED:
                throw new StorageException(StorageException.Kind.PRODUCER_FENCED, id + ": " + c.detail());
            case COORDINATOR_FENCED:
                throw new StorageException(StorageException.Kind.COORDINATOR_FENCED, id + ": " + c.detail());
            default:
                throw new StorageException(StorageException.Kind.OUT_OF_ORDER_SEQUENCE, id + ": " + c.detail());
        }
    }

    /** Writes the batches ({@link SegmentLog#write}), records idempotence and transaction state, publishes. Holds lock. */
    private AppendResult write(ProducedBatches parsed, long logAppendTimeMs) {
        long base = log.nextOffset();
        List<RecordBatchHeader> stamped;
        try {
            stamped = log.write(parsed, logAppendTimeMs);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    log.active().logFile() + ": append failed, nothing written: " + e.getMessage(),
                    e);
        } catch (StorageException e) {
            sticky = e;
            throw e;
        }
        for (int i = 0; i < stamped.size(); i++) {
            producers.record(stamped.get(i), parsed.buffer(), parsed.starts()[i]);
            txns.onAppend(stamped.get(i), parsed.buffer(), parsed.starts()[i]);
        }
        publish();
        return new AppendResult(base, log.nextOffset() - 1, logStartOffset, false, logAppendTimeMs);
    }

    /** Rolls when {@link SegmentLog#rollDue} (segment.ms is 7 days unset, as Kafka, so time retention can reach a quiet topic's data). Holds lock. */
    private void maybeRoll(long incomingBytes) {
        if (rollDue(incomingBytes)) {
            roll();
        }
    }

    /** Holds lock. */
    private boolean rollDue(long incomingBytes) {
        long segmentBytes = topicConfig.segmentBytes() != null ? topicConfig.segmentBytes() : config.segmentBytes();
        long segmentMs = topicConfig.segmentMs() != null ? topicConfig.segmentMs() : TopicDefaults.DEFAULT_SEGMENT_MS;
        return log.rollDue(incomingBytes, segmentBytes, segmentMs, now());
    }

    /**
     * The old segment (log and index) is fsynced under the lock (so the committer never has to reach
     * back into it), the state snapshots are written, and the new file's directory entry is fsynced
     * before anything in it can be acknowledged. Holds lock.
     */
    private void roll() {
        try {
            log.sealActive();
            // Recovery replays only the active segment (from the checkpoint or byte 0): the snapshots must
            // cover every batch before the new segment, or a producer whose last batches sit in the
            // sealed one would be forgotten after a crash (its retry written twice, its next sequence refused).
            stateFiles.writeSnapshots(producers, txns);
            log.startSegment(now());
        } catch (IOException | StorageException e) {
            StorageException s =
                    new StorageException(StorageException.Kind.IO, id + ": segment roll failed: " + e.getMessage(), e);
            sticky = s;
            throw s;
        }
        publish();
    }

    private long flushInterval() {
        return topicConfig.flushMessages() != null
                ? Math.max(1, topicConfig.flushMessages())
                : config.flushIntervalMessages();
    }

    /** Swaps in what readers see. Holds lock. */
    private void publish() {
        long next = log.nextOffset();
        view = new PartitionView(
                log.readerCopy(),
                new PartitionState(logStartOffset, next, txns.lastStableOffset(next), epoch, log.sizeInBytes()));
    }

    /** The committer's side of the partition. */
    private final class CommitterLog implements GroupCommitter.Log {
        @Override
        public long requestedSeq() {
            return requestedFlushSeq;
        }

        @Override
        public GroupCommitter.FlushTarget capture() {
            lock.lock();
            try {
                return flushTarget();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flushed(GroupCommitter.FlushTarget t) {
            maybeRefreshCheckpoint(t);
        }

        @Override
        public void fsynced(long durationNanos, long appendsCovered) {
            observer.fsynced(id, durationNanos, appendsCovered);
        }

        @Override
        public void failed(StorageException e) {
            sticky = e;
            if (e.kind() == StorageException.Kind.CLOSED) {
                LOG.debug("{}: committer stopped by close", id);
            } else {
                LOG.error("{}: {}", id, e.getMessage());
                observer.partitionFailed(id, e);
            }
        }

        @Override
        public String describe() {
            return id.toString();
        }
    }

    /** Everything appended so far, as the committer fsyncs it. Holds lock. */
    private GroupCommitter.FlushTarget flushTarget() {
        Segment active = log.active();
        return new GroupCommitter.FlushTarget(requestedFlushSeq, active, active.size(), log.nextOffset());
    }

    /** Runs on the committer after each fsync: {@link CheckpointKeeper#refreshIfDue}, under the lock. */
    private void maybeRefreshCheckpoint(GroupCommitter.FlushTarget t) {
        lock.lock();
        try {
            if (closed || sticky != null) {
                return; // close writes its own checkpoint; after a failure nothing more is claimed
            }
            checkpoints.refreshIfDue(t.segment(), t.bytePos(), t.highWatermark(), producers, txns);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- log start: DeleteRecords and retention

    @Override
    public long deleteRecords(long offset) {
        List<Segment> gone;
        lock.lock();
        try {
            ensureOpen();
            long target;
            try {
                target = LogStartRule.deleteRecordsTarget(offset, log.nextOffset());
            } catch (StorageException e) {
                throw new StorageException(e.kind(), id + ": " + e.getMessage());
            }
            if (target <= logStartOffset) {
                return logStartOffset;
            }
            gone = advanceLogStart(target);
        } finally {
            lock.unlock();
        }
        RemovedSegments.closeAndUnlink(id, dir, gone);
        return view.state().logStartOffset();
    }

    /**
     * One retention pass ({@link LogStartRule#retentionTarget}). The active segment is never removed.
     * Returns how many segments went.
     */
    int runRetention(long nowMs) {
        List<Segment> gone;
        lock.lock();
        try {
            if (closed || sticky != null) {
                return 0;
            }
            long newStart = LogStartRule.retentionTarget(log.readerCopy(), topicConfig, logStartOffset, nowMs);
            if (newStart == logStartOffset) {
                return 0;
            }
            gone = advanceLogStart(newStart);
        } catch (IOException e) {
            LOG.warn("{}: retention pass failed: {}", id, e.toString());
            return 0;
        } finally {
            lock.unlock();
        }
        RemovedSegments.closeAndUnlink(id, dir, gone);
        return gone.size();
    }

    /**
     * Moves log start, durably (the manifest is written before returning: an acknowledged purge
     * survives a power cut), and detaches closed segments lying wholly below it. Holds lock.
     */
    private List<Segment> advanceLogStart(long target) {
        // Durable first: if the write fails, nothing changed and the caller gets the error.
        // The high watermark stays what is known fsynced (recovery reads bytes below it as durable): the
        // log past it may still be in the page cache (acks=1), and this write does not fsync the log.
        manifestOnDisk = new Manifest(epoch, Math.max(manifestOnDisk.highWatermark(), target), target);
        stateFiles.advanceLogStart(manifestOnDisk);
        logStartOffset = target;
        txns.dropAbortedBelow(logStartOffset);
        List<Segment> gone = log.removeWhollyBelow(logStartOffset);
        publish();
        return gone;
    }

    // ---------------------------------------------------------------- compaction (io.kaas.storage.cleaner)

    /** One cleaning pass if this partition's topic is compacted and a pass is due: see {@link PartitionCleaning}. */
    Optional<CleanReport> cleanIfDue(CleanerSettings settings, long nowMs, BooleanSupplier stopped) {
        return cleaning.cleanIfDue(settings, nowMs, stopped);
    }

    /** What one cleaning pass starts from, taken together under the lock. */
    record CleaningInput(TopicConfig topic, List<Segment> segments, CleanableLog log) {}

    /** Empty when the partition is closed, failed or not compacted. */
    Optional<CleaningInput> cleaningInput(long firstDirtyOffset) {
        lock.lock();
        try {
            if (closed || sticky != null || !topicConfig.compacted()) {
                return Optional.empty();
            }
            List<Segment> segments = log.readerCopy();
            return Optional.of(new CleaningInput(
                    topicConfig,
                    segments,
                    new CleanableLog(
                            dir,
                            segments.stream().map(Segment::name).toList(),
                            logStartOffset,
                            txns.lastStableOffset(log.nextOffset()),
                            producers.lastBatchBaseOffsets(),
                            firstDirtyOffset)));
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Puts a cleaned group in place, under the lock: the old segments' log channels are held open (and
     * their index entries kept) so a reader still on the old view keeps reading their old bytes, the
     * files are swapped ({@link CleanerSwap#commit}), readers get the new list, and only then are the
     * old segments retired (a reader that meets a retired one re-reads the view, as after retention).
     * When the group changed since the pass began (retention), the pass is abandoned before any file moves.
     * A failure after the swap committed fails the partition: its open segments no longer match the
     * files, and a reopen (recovery) finishes the swap.
     */
    void swapCleaned(Path dir, SegmentName target, List<SegmentName> replaced) throws IOException {
        List<Segment> old;
        List<CachedFile.Handle> held = new ArrayList<>();
        lock.lock();
        try {
            if (closed || sticky != null) {
                throw new IOException(id + ": partition closed while cleaning");
            }
            old = log.closedSegmentsNamed(replaced);
            if (old == null) {
                throw new IOException(id + ": segments changed while cleaning (retention); the pass is abandoned");
            }
            for (Segment s : old) {
                held.add(s.holdForSwap());
            }
            try {
                CleanerSwap.commit(dir, target, replaced);
                log.replace(old, target);
            } catch (IOException | RuntimeException e) {
                StorageException s = new StorageException(
                        StorageException.Kind.IO,
                        id + ": cleaner swap failed (" + e.getMessage() + "); reopen the partition to finish it",
                        e);
                sticky = s;
                observer.partitionFailed(id, s);
                throw e;
            }
            publish();
        } catch (IOException | RuntimeException e) {
            held.forEach(CachedFile.Handle::close);
            throw e;
        } finally {
            lock.unlock();
        }
        for (Segment s : old) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the replaced {} failed: {}", id, s, e.toString());
            }
        }
        held.forEach(CachedFile.Handle::close);
    }

    void updateTopicConfig(TopicConfig config) {
        lock.lock();
        try {
            topicConfig = config;
            timestamps = AppendTimestamps.of(config);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- reads and lookups (PartitionReads)

    @Override
    public FetchResult read(long fetchOffset, int maxBytes, long readCap) {
        return reads.read(fetchOffset, maxBytes, readCap, false);
    }

    @Override
    public FetchResult readForTransfer(long fetchOffset, int maxBytes, long readCap) {
        return reads.read(fetchOffset, maxBytes, readCap, true);
    }

    @Override
    public PartitionState state() {
        return view.state();
    }

    @Override
    public Optional<StorageException> failure() {
        return closed ? Optional.empty() : Optional.ofNullable(sticky);
    }

    @Override
    public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
        return hwmWaiters.awaitAbove(offset);
    }

    /** Fetch long-polls currently parked on this partition (a leak check for tests). */
    int pendingHighWatermarkWaiters() {
        return hwmWaiters.size();
    }

    @Override
    public Optional<StoredBatch> firstBatchWithMaxTimestampAtLeast(long timestamp, long fromOffset) {
        return reads.firstBatchWithMaxTimestampAtLeast(timestamp, fromOffset);
    }

    @Override
    public Optional<StoredBatch> firstBatchWithMaxTimestamp() {
        return reads.firstBatchWithMaxTimestamp();
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int requested) {
        return reads.endOffsetForEpoch(requested);
    }

    @Override
    public List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound) {
        lock.lock();
        try {
            return txns.aborted(fetchOffset, upperBound);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<ProducerStatus> producers() {
        lock.lock();
        try {
            return ProducerStatus.of(producers, txns);
        } finally {
            lock.unlock();
        }
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

    /** fsyncs issued by the committer so far (tests and benchmarks count them). */
    public long fsyncCount() {
        return committer.fsyncCount();
    }

    @Override
    public void flush() {
        GroupCommitter.FlushTarget t;
        lock.lock();
        try {
            ensureOpen();
            t = flushTarget();
        } finally {
            lock.unlock();
        }
        if (!committer.fsync(t, false)) {
            throw sticky;
        }
        committer.complete(t.seq());
    }

    private void ensureOpen() {
        if (closed) {
            throw new StorageException(StorageException.Kind.CLOSED, id + " is closed");
        }
        if (sticky != null) {
            throw sticky;
        }
    }

    /**
     * Closes without writing anything more to the partition's files — no fsync-and-checkpoint, no
     * manifest, no snapshots: this broker was fenced and another may own the partition already. Appends
     * waiting for an fsync fail ({@link StorageException.Kind#NOT_OWNED}); nothing is acknowledged.
     */
    public void abandon() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            committer.fail(
                    new StorageException(StorageException.Kind.NOT_OWNED, id + ": given up (this broker was fenced)"));
            log.closeAll(id);
        } finally {
            lock.unlock();
            owner.close();
            hwmWaiters.close();
        }
    }

    /**
     * Clean close: fsync the log and index, write the snapshots and the checkpoint at EOF
     * ({@link PartitionStateFiles#writeCheckpoint}) and the manifest (so the next open scans zero
     * bytes), close files, release the lock. Each step is skipped when already so on disk: a partition
     * untouched since it was loaded closes without opening or writing a file. After an fsync failure only the files are closed:
     * nothing unsynced is claimed durable.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (sticky == null) {
                try {
                    log.active().flush();
                    committer.complete(requestedFlushSeq);
                    checkpoints.writeAtEnd(log.active(), log.nextOffset(), producers, txns);
                    Manifest atClose = new Manifest(epoch, log.nextOffset(), logStartOffset);
                    if (!atClose.equals(manifestOnDisk)) {
                        stateFiles.writeManifest(atClose);
                    }
                } catch (IOException | StorageException e) {
                    LOG.error("{}: clean close failed; the next open recovers from the log: {}", id, e.getMessage());
                    committer.fail(new StorageException(
                            StorageException.Kind.IO, id + ": close failed: " + e.getMessage(), e));
                }
            } else {
                committer.fail(sticky);
            }
            log.closeAll(id);
        } finally {
            lock.unlock();
            owner.close();
            hwmWaiters.close();
        }
    }

    private long now() {
        return config.clock().millis();
    }
}
