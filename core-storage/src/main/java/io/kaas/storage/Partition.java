package io.kaas.storage;

import io.kaas.storage.format.BatchValidator;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition: the write path under one lock, an immutable {@link View} for lock-free readers, and
 * a {@link GroupCommitter} doing the fsyncs. Start reading at {@link #append}.
 *
 * <p>Durability promise: an append acknowledged under {@link Acks#ALL} (flush interval 1, the default)
 * is in the log and fsynced; its segment's directory entry was fsynced when the segment was created.
 */
public final class Partition implements PartitionLog {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);
    public static final String LOCK_FILE = ".lock";
    /**
     * How long a segment removed by retention or DeleteRecords stays open after its files are unlinked,
     * so {@link FileSlice}s already handed to a socket finish sending (Kafka's file.delete.delay.ms).
     */
    public static final Duration REMOVED_SEGMENT_CLOSE_DELAY = Duration.ofSeconds(60);

    /** What readers see, swapped atomically after every change. */
    private record View(List<Segment> segments, PartitionState state) {}

    private record HwmWaiter(long offset, CompletableFuture<Void> future) {}

    private final TopicPartition id;
    private final Path dir;
    private final EngineConfig config;
    private final IndexPolicy indexPolicy;
    private final EngineExecutors executors;
    private final FileChannel lockChannel;
    private final FileLock fileLock;
    private final GroupCommitter committer;
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentLinkedQueue<HwmWaiter> hwmWaiters = new ConcurrentLinkedQueue<>();
    private final Object checkpointLock = new Object();
    /** Unlinked segments whose files are still open (see REMOVED_SEGMENT_CLOSE_DELAY); closed by the timer or by close(). */
    private final ConcurrentLinkedQueue<Segment> removedOpen = new ConcurrentLinkedQueue<>();
    /** sendfile needs an OS file descriptor: the in-memory (jimfs) engine's channels have none, so it copies. */
    private final boolean slicesSupported;

    // Guarded by lock.
    private final ArrayList<Segment> segments = new ArrayList<>();
    /** Immutable copy of {@code segments} and the bytes of all but the active one; see segmentsChanged. */
    private List<Segment> segmentsView = List.of();
    private long closedSegmentBytes;
    private final ProducerStateTable producers;
    private final TxnIndex txns;
    private long nextOffset;
    private long logStartOffset;
    private final int epoch;
    private long pendingMessages;
    private boolean closed;
    private TopicConfig topicConfig;

    /** Written under lock, read lock-free by the committer to decide whether to run. */
    private volatile long requestedFlushSeq;
    private volatile View view;
    /** Set once by an fsync failure or stall; every later append fails fast with it. */
    private volatile StorageException sticky;
    /** Guarded by checkpointLock. */
    private RecoveryCheckpoint lastCheckpoint;
    private RecoveryReport openReport;

    private Partition(TopicPartition id, Path dir, EngineConfig config, TopicConfig topicConfig, EngineExecutors executors,
                      FileChannel lockChannel, FileLock fileLock, ProducerStateTable producers, TxnIndex txns, int epoch) {
        this.id = id;
        this.dir = dir;
        this.config = config;
        this.topicConfig = topicConfig;
        this.indexPolicy = new IndexPolicy(config.indexIntervalBytes());
        this.executors = executors;
        this.lockChannel = lockChannel;
        this.fileLock = fileLock;
        this.producers = producers;
        this.txns = txns;
        this.epoch = epoch;
        this.slicesSupported = dir.getFileSystem() == FileSystems.getDefault();
        this.committer = new GroupCommitter(new CommitterLog(), executors.committers(), executors.watchdog(), config.fsyncTimeout());
    }

    /**
     * Opens the partition in {@code dir} (created if missing): takes the {@code .lock}, runs the
     * recovery scan, loads idempotence and transaction state and replays the scanned tail onto it.
     */
    public static Partition open(Path dir, TopicPartition id, EngineConfig config, TopicConfig topicConfig,
                                 EngineExecutors executors) {
        FileChannel lockChannel = null;
        try {
            AtomicFile.createDirectories(dir);
            lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock fl;
            try {
                fl = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                fl = null;
            }
            if (fl == null) {
                throw new StorageException(StorageException.Kind.LOCKED, dir + ": another process holds " + LOCK_FILE);
            }
            RecoveryScan.RecoveredState recovered = RecoveryScan.recoverState(dir,
                    RecoveryOptions.forOpen(new IndexPolicy(config.indexIntervalBytes()), config.leaderEpoch()));
            RecoveryScan.Outcome outcome = recovered.outcome();
            if (outcome.report().refused()) {
                throw new StorageException(StorageException.Kind.DAMAGED, String.join("; ", outcome.report().damage())
                        + " — run `kaas recover --force " + dir + "` to truncate, or restore the partition");
            }
            outcome.report().actions().forEach(a -> LOG.warn("{}: recovery: {}", id, a));
            ProducerStateTable producers = recovered.producers();
            TxnIndex txns = recovered.txns();
            Partition p = new Partition(id, dir, config, topicConfig, executors, lockChannel, fl, producers, txns, outcome.epoch());
            p.openReport = outcome.report();
            p.load(outcome);
            return p;
        } catch (IOException e) {
            closeQuietly(lockChannel);
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot open partition: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private void load(RecoveryScan.Outcome outcome) throws IOException {
        for (SegmentName name : outcome.segments()) {
            segments.add(Segment.open(dir, name, indexPolicy));
        }
        nextOffset = outcome.logEndOffset();
        logStartOffset = outcome.logStartOffset();
        if (segments.isEmpty()) {
            segments.add(Segment.create(dir, SegmentName.of(epoch, nextOffset), indexPolicy, now()));
            AtomicFile.fsyncDirectory(dir);
            StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(epoch, nextOffset, logStartOffset));
        }
        Segment active = active();
        // RecoveryScan.recoverState wrote the snapshots, then the checkpoint at EOF, if it scanned a tail.
        lastCheckpoint = new RecoveryCheckpoint(active.baseOffset(), active.size(), nextOffset);
        segmentsChanged();
        publish();
    }

    // ---------------------------------------------------------------- append path

    @Override
    public CompletableFuture<AppendResult> append(ByteBuffer batches, Acks acks, int leaderEpoch) {
        // Validation is CPU work on the caller's thread, outside the lock.
        Batches parsed;
        try {
            parsed = Batches.parse(batches);
        } catch (CorruptBatchException e) {
            return CompletableFuture.failedFuture(e);
        }
        AppendResult result;
        long flushSeq;
        boolean triggered = false;
        lock.lock();
        try {
            if (closed) {
                throw new StorageException(StorageException.Kind.CLOSED, id + " is closed");
            }
            if (sticky != null) {
                throw sticky;
            }
            if (leaderEpoch >= 0 && leaderEpoch < epoch) {
                throw new StorageException(StorageException.Kind.FENCED_LEADER_EPOCH,
                        id + ": leader epoch " + leaderEpoch + " is older than the partition's " + epoch);
            }
            Optional<AppendResult> duplicate = classify(parsed);
            if (duplicate.isPresent()) {
                result = duplicate.get();
            } else {
                maybeRoll(parsed.totalBytes());
                result = write(parsed);
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
            lock.unlock();
        }
        wakeHwmWaiters();
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
    private Optional<AppendResult> classify(Batches parsed) {
        List<RecordBatchHeader> headers = parsed.headers();
        for (RecordBatchHeader h : headers) {
            if (h.hasProducerId() && headers.size() > 1) {
                throw new CorruptBatchException(CorruptBatchException.Reason.BAD_RECORD_COUNT, -1,
                        "an idempotent or transactional produce must carry exactly one batch, got " + headers.size());
            }
        }
        RecordBatchHeader h = headers.get(0);
        ProducerStateTable.Classification c = producers.classify(h);
        switch (c.verdict()) {
            case APPEND:
                return Optional.empty();
            case DUPLICATE:
                return Optional.of(new AppendResult(c.duplicateOf().baseOffset(), c.duplicateOf().baseOffset() + h.lastOffsetDelta(),
                        logStartOffset, true));
            case FENCED:
                throw new StorageException(StorageException.Kind.PRODUCER_FENCED, id + ": " + c.detail());
            default:
                throw new StorageException(StorageException.Kind.OUT_OF_ORDER_SEQUENCE, id + ": " + c.detail());
        }
    }

    /** Assigns offsets in place, writes, records state, publishes. Holds lock. */
    private AppendResult write(Batches parsed) {
        ByteBuffer buf = parsed.buffer();
        long offset = nextOffset;
        List<RecordBatchHeader> assigned = new ArrayList<>(parsed.headers().size());
        for (int i = 0; i < parsed.headers().size(); i++) {
            RecordBatchHeader h = parsed.headers().get(i);
            RecordBatchHeader.assignOffsetAndEpoch(buf, parsed.starts()[i], offset, epoch);
            assigned.add(RecordBatchHeader.peek(buf, parsed.starts()[i]));
            offset += h.lastOffsetDelta() + 1L;
        }
        Segment active = active();
        try {
            active.append(buf, assigned, parsed.starts());
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, active.logFile() + ": append failed, nothing written: " + e.getMessage(), e);
        } catch (StorageException e) {
            sticky = e;
            throw e;
        }
        for (int i = 0; i < assigned.size(); i++) {
            producers.record(assigned.get(i));
            txns.onAppend(assigned.get(i), buf, parsed.starts()[i]);
        }
        long base = nextOffset;
        nextOffset = offset;
        publish();
        return new AppendResult(base, offset - 1, logStartOffset, false);
    }

    /**
     * Rolls when the batch would push the active segment past segment.bytes (or past what a 32-bit
     * index position or relative offset can address), or the segment is older than segment.ms (7 days
     * unset, as Kafka, so time retention can reach a quiet topic's data). The old
     * segment (log and index) is fsynced under the lock (so the committer never has to reach back into
     * it), the state snapshots are written, and the new file's directory entry is fsynced before
     * anything in it can be acknowledged. Holds lock.
     */
    private void maybeRoll(long incomingBytes) {
        Segment active = active();
        if (active.size() == 0) {
            return;
        }
        long segmentBytes = Math.min(topicConfig.segmentBytes() != null ? topicConfig.segmentBytes() : config.segmentBytes(),
                Integer.MAX_VALUE);
        boolean full = active.size() + incomingBytes > segmentBytes;
        boolean offsetsExhausted = nextOffset - active.baseOffset() > Integer.MAX_VALUE - 1_000_000L;
        long segmentMs = topicConfig.segmentMs() != null ? topicConfig.segmentMs() : TopicConfig.DEFAULT_SEGMENT_MS;
        boolean old = now() - active.createdMs() >= segmentMs;
        if (full || offsetsExhausted || old) {
            roll();
        }
    }

    private void roll() {
        Segment old = active();
        try {
            old.seal();
            // The index too, now: recovery trusts a closed segment's index when it looks sane, and an
            // unsynced one can come back torn into plausible but wrong entries (a reader then finds
            // nothing at an offset that is in the log). A deferred fsync left a window for that, and a
            // clean close could beat it to the file.
            old.index().flush();
            // Recovery replays only the active segment (from the checkpoint or byte 0): the snapshots must
            // cover every batch before the new segment, or a producer whose last batches sit in the
            // sealed one would be forgotten after a crash (its retry written twice, its next sequence refused).
            writeStateSnapshots();
            Segment fresh = Segment.create(dir, SegmentName.of(epoch, nextOffset), indexPolicy, now());
            AtomicFile.fsyncDirectory(dir);
            segments.add(fresh);
        } catch (IOException | StorageException e) {
            StorageException s = new StorageException(StorageException.Kind.IO, id + ": segment roll failed: " + e.getMessage(), e);
            sticky = s;
            throw s;
        }
        segmentsChanged();
        publish();
    }

    private long flushInterval() {
        return topicConfig.flushMessages() != null ? Math.max(1, topicConfig.flushMessages()) : config.flushIntervalMessages();
    }

    private Segment active() {
        return segments.get(segments.size() - 1);
    }

    /**
     * Recomputes what readers see of the segment list. The list changes only on load, roll and
     * removal, so the append path does not copy it or walk it. Holds lock.
     */
    private void segmentsChanged() {
        segmentsView = List.copyOf(segments);
        long closed = 0;
        for (int i = 0; i < segments.size() - 1; i++) {
            closed += segments.get(i).size();
        }
        closedSegmentBytes = closed;
    }

    private void publish() {
        long lso = txns.lastStableOffset(nextOffset);
        long size = closedSegmentBytes + active().size();
        view = new View(segmentsView, new PartitionState(logStartOffset, nextOffset, lso, epoch, size));
    }

    private void wakeHwmWaiters() {
        long hwm = view.state().highWatermark();
        for (HwmWaiter w : hwmWaiters) {
            if (hwm > w.offset && hwmWaiters.remove(w)) {
                w.future.complete(null);
            }
        }
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
                Segment active = active();
                return new GroupCommitter.FlushTarget(requestedFlushSeq, active, active.size(), nextOffset);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flushed(GroupCommitter.FlushTarget t) {
            maybeRefreshCheckpoint(t);
        }

        @Override
        public void failed(StorageException e) {
            sticky = e;
            if (e.kind() == StorageException.Kind.CLOSED) {
                LOG.debug("{}: committer stopped by close", id);
            } else {
                LOG.error("{}: {}", id, e.getMessage());
            }
        }

        @Override
        public String describe() {
            return id.toString();
        }
    }

    /**
     * Bounded recovery: once the fsynced log grew checkpointIntervalBytes past the last checkpoint,
     * record it (index and producer state first, so the checkpoint never claims more than is on disk).
     * Runs on the committer under the partition lock: every snapshot write (here, at roll, at close)
     * is serialised on it, so two writers never share the .tmp file and an older snapshot never lands
     * over a newer one (a roll's snapshot must cover everything before the new segment).
     */
    private void maybeRefreshCheckpoint(GroupCommitter.FlushTarget t) {
        lock.lock();
        try {
            if (closed || sticky != null) {
                return; // close writes its own checkpoint; after a failure nothing more is claimed
            }
            synchronized (checkpointLock) {
                long since = t.segment().baseOffset() == lastCheckpoint.segmentBase() ? t.bytePos() - lastCheckpoint.bytePos() : t.bytePos();
                if (since < config.checkpointIntervalBytes()) {
                    return;
                }
                try {
                    t.segment().index().flush();
                    writeStateSnapshots();
                    RecoveryCheckpoint cp = new RecoveryCheckpoint(t.segment().baseOffset(), t.bytePos(), t.highWatermark());
                    StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), cp);
                    lastCheckpoint = cp;
                } catch (IOException | StorageException e) {
                    LOG.warn("{}: could not refresh the recovery checkpoint (next open scans more): {}", id, e.getMessage());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Writes the producer-state and txn snapshots as of now. Holds lock (or runs before the partition is shared). */
    private void writeStateSnapshots() {
        StateJson.write(dir.resolve(ProducerStateSnapshot.FILE_NAME), producers.snapshot());
        StateJson.write(dir.resolve(TxnIndexSnapshot.FILE_NAME), txns.snapshot());
    }

    // ---------------------------------------------------------------- read path

    @Override
    public FetchResult read(long fetchOffset, int maxBytes, long readCap) {
        return read(fetchOffset, maxBytes, readCap, false);
    }

    @Override
    public FetchResult readForTransfer(long fetchOffset, int maxBytes, long readCap) {
        return read(fetchOffset, maxBytes, readCap, slicesSupported);
    }

    private FetchResult read(long fetchOffset, int maxBytes, long readCap, boolean asSlice) {
        for (int attempt = 0; ; attempt++) {
            View v = view;
            PartitionState s = v.state();
            if (fetchOffset < s.logStartOffset() || fetchOffset > s.highWatermark()) {
                throw new StorageException(StorageException.Kind.OFFSET_OUT_OF_RANGE, String.format(
                        "%s: offset %d is outside [%d, %d]", id, fetchOffset, s.logStartOffset(), s.highWatermark()));
            }
            long cap = Math.min(readCap, s.highWatermark());
            try {
                return readFrom(v.segments(), fetchOffset, maxBytes, cap, s, asSlice);
            } catch (ClosedChannelException e) {
                if (attempt > 0 || closed) {
                    throw new StorageException(StorageException.Kind.OFFSET_OUT_OF_RANGE, id + ": offset " + fetchOffset + " was removed while reading");
                }
                // A segment was closed under us (partition closing, or a removed segment past its delay): retry on the new view.
            } catch (IOException e) {
                throw new StorageException(StorageException.Kind.IO, id + ": read failed at offset " + fetchOffset + ": " + e.getMessage(), e);
            }
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /** The one read rule, for both copies and slices: see {@link Segment#wholeBatchesEnd}. */
    private static FetchResult readFrom(List<Segment> segs, long fetchOffset, int maxBytes, long cap, PartitionState state,
                                        boolean asSlice) throws IOException {
        if (fetchOffset >= cap) {
            return new FetchResult(EMPTY, state);
        }
        int i = floorSegment(segs, fetchOffset);
        for (; i < segs.size(); i++) {
            Segment seg = segs.get(i);
            long limit = seg.size();
            long pos = seg.positionOf(fetchOffset, limit);
            if (pos < 0) {
                continue;
            }
            int length = (int) (seg.wholeBatchesEnd(pos, limit, maxBytes, cap) - pos);
            if (length == 0) {
                return new FetchResult(EMPTY, state);
            }
            return asSlice ? new FetchResult(EMPTY, seg.slice(pos, length), state) : new FetchResult(seg.read(pos, length), state);
        }
        return new FetchResult(EMPTY, state);
    }

    private static int floorSegment(List<Segment> segs, long offset) {
        int lo = 0;
        int hi = segs.size() - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (segs.get(mid).baseOffset() <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    @Override
    public PartitionState state() {
        return view.state();
    }

    @Override
    public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
        if (view.state().highWatermark() > offset || closed) {
            return CompletableFuture.completedFuture(null);
        }
        HwmWaiter w = new HwmWaiter(offset, new CompletableFuture<>());
        // A long-poll that times out cancels its future: drop it, or idle partitions collect waiters.
        w.future.whenComplete((v, t) -> hwmWaiters.remove(w));
        hwmWaiters.add(w);
        // An append may have published between the check and the add.
        if ((view.state().highWatermark() > offset || closed) && hwmWaiters.remove(w)) {
            w.future.complete(null);
        }
        return w.future;
    }

    /** Fetch long-polls currently parked on this partition (a leak check for tests). */
    int pendingHighWatermarkWaiters() {
        return hwmWaiters.size();
    }

    // ---------------------------------------------------------------- log start: DeleteRecords and retention

    @Override
    public long deleteRecords(long offset) {
        List<Segment> removed;
        lock.lock();
        try {
            ensureOpen();
            long target = offset == -1 ? nextOffset : offset;
            if (target < 0 || target > nextOffset) {
                throw new StorageException(StorageException.Kind.OFFSET_OUT_OF_RANGE, String.format(
                        "%s: cannot delete records before %d: the high watermark is %d", id, offset, nextOffset));
            }
            if (target <= logStartOffset) {
                return logStartOffset;
            }
            removed = advanceLogStart(target);
        } finally {
            lock.unlock();
        }
        unlink(removed);
        return view.state().logStartOffset();
    }

    /**
     * Moves log start, durably (the manifest is written before returning: an acknowledged purge
     * survives a power cut), and detaches closed segments lying wholly below it. Holds lock.
     */
    private List<Segment> advanceLogStart(long target) {
        // Durable first: if the write fails, nothing changed and the caller gets the error.
        StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(epoch, nextOffset, target));
        logStartOffset = target;
        List<Segment> removed = new ArrayList<>();
        while (segments.size() > 1 && segments.get(1).baseOffset() <= logStartOffset) {
            removed.add(segments.remove(0));
        }
        segmentsChanged();
        publish();
        return removed;
    }

    /**
     * Unlinks removed segments now (the directory fsync makes that durable) but closes their files only
     * after {@link #REMOVED_SEGMENT_CLOSE_DELAY}: a Fetch response may still be sending a slice of one.
     * Unlinked files leave nothing behind for recovery, even if the process dies before the close.
     */
    private void unlink(List<Segment> removed) {
        if (removed.isEmpty()) {
            return;
        }
        try {
            for (Segment s : removed) {
                removedOpen.add(s);
                s.unlinkKeepOpen();
            }
            AtomicFile.fsyncDirectory(dir);
        } catch (IOException e) {
            LOG.warn("{}: could not remove old segments (they are below log start and will be removed at next open): {}", id, e.toString());
        }
        // The fsync watchdog's timer closes them: a close is quick and never waits on the disk's flush queue.
        try {
            executors.watchdog().schedule(() -> removed.forEach(this::closeRemoved),
                    REMOVED_SEGMENT_CLOSE_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            removed.forEach(this::closeRemoved); // the engine is closing: nothing will send from them
        }
    }

    private void closeRemoved(Segment s) {
        if (removedOpen.remove(s)) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("{}: closing removed segment {} failed: {}", id, s, e.toString());
            }
        }
    }

    /** Removed segments whose files are still open (for tests). */
    int removedSegmentsStillOpen() {
        return removedOpen.size();
    }

    /**
     * One retention pass: removes closed segments past retention.bytes (oldest first) or whose newest
     * batch timestamp (file modification time when no batch has one, as Kafka does) is older than
     * retention.ms. The active segment is never removed. Returns how many segments went.
     */
    int runRetention(long nowMs) {
        List<Segment> removed;
        lock.lock();
        try {
            if (closed || sticky != null) {
                return 0;
            }
            Long retentionMs = topicConfig.retentionMs() != null ? topicConfig.retentionMs() : TopicConfig.DEFAULT_RETENTION_MS;
            Long retentionBytes = topicConfig.retentionBytes();
            String policy = topicConfig.cleanupPolicy();
            if (policy != null && !policy.contains("delete")) {
                return 0;
            }
            long total = 0;
            for (Segment s : segments) {
                total += s.size();
            }
            long newStart = logStartOffset;
            for (int i = 0; i < segments.size() - 1; i++) {
                Segment s = segments.get(i);
                boolean overSize = retentionBytes != null && retentionBytes >= 0 && total - s.size() >= retentionBytes;
                boolean expired = retentionMs != null && retentionMs >= 0 && nowMs - segmentAgeMs(s) > retentionMs;
                if (!overSize && !expired) {
                    break;
                }
                total -= s.size();
                newStart = Math.max(newStart, segments.get(i + 1).baseOffset());
            }
            if (newStart == logStartOffset) {
                return 0;
            }
            removed = advanceLogStart(newStart);
        } catch (IOException e) {
            LOG.warn("{}: retention pass failed: {}", id, e.toString());
            return 0;
        } finally {
            lock.unlock();
        }
        unlink(removed);
        return removed.size();
    }

    private static long segmentAgeMs(Segment s) throws IOException {
        long ts = s.maxTimestamp();
        return ts >= 0 ? ts : s.lastModifiedMs();
    }

    void updateTopicConfig(TopicConfig config) {
        lock.lock();
        try {
            topicConfig = config;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- lookups

    @Override
    public Optional<TimestampOffset> offsetForTimestamp(long timestamp) {
        View v = view;
        try {
            for (Segment s : v.segments()) {
                if (s.maxTimestamp() < timestamp) {
                    continue;
                }
                long pos = 0;
                long limit = s.size();
                while (pos + RecordBatchHeader.HEADER_SIZE <= limit) {
                    RecordBatchHeader h = s.headerAt(pos);
                    if (h.maxTimestamp() >= timestamp && h.nextOffset() > v.state().logStartOffset()) {
                        // Batch granularity: records are never decoded, so the answer is the batch's first offset.
                        return Optional.of(new TimestampOffset(h.maxTimestamp(), Math.max(h.baseOffset(), v.state().logStartOffset())));
                    }
                    pos += h.sizeInBytes();
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, id + ": timestamp lookup failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<TimestampOffset> maxTimestamp() {
        View v = view;
        long best = RecordBatchHeader.NO_TIMESTAMP;
        long at = -1;
        try {
            for (Segment s : v.segments()) {
                if (s.maxTimestamp() > best) {
                    best = s.maxTimestamp();
                    at = s.offsetOfMaxTimestamp();
                }
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, id + ": timestamp lookup failed: " + e.getMessage(), e);
        }
        return at < 0 ? Optional.empty() : Optional.of(new TimestampOffset(best, at));
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
    public Optional<EpochEndOffset> endOffsetForEpoch(int requested) {
        View v = view;
        int current = v.state().leaderEpoch();
        if (requested == current || requested > current) {
            return requested == current ? Optional.of(new EpochEndOffset(current, v.state().highWatermark())) : Optional.empty();
        }
        // Epochs start where their first segment starts; the end of an epoch is the start of the next.
        int best = -1;
        long end = -1;
        for (Segment s : v.segments()) {
            int e = s.name().epoch();
            if (e <= requested) {
                best = Math.max(best, e);
            } else if (end < 0) {
                end = s.baseOffset();
            }
        }
        if (best < 0) {
            return Optional.empty();
        }
        return Optional.of(new EpochEndOffset(best, end < 0 ? v.state().highWatermark() : end));
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
            Segment active = active();
            t = new GroupCommitter.FlushTarget(requestedFlushSeq, active, active.size(), nextOffset);
        } finally {
            lock.unlock();
        }
        if (!committer.fsync(t)) {
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
     * Clean close: fsync the log and index, write producer and transaction snapshots, the checkpoint
     * at EOF and the manifest (so the next open scans zero bytes), close files, release the lock.
     * After an fsync failure only the files are closed: nothing unsynced is claimed durable.
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
                    Segment active = active();
                    active.flush();
                    active.index().flush();
                    committer.complete(requestedFlushSeq);
                    ProducerStateSnapshot ps = producers.snapshot();
                    TxnIndexSnapshot ts = txns.snapshot();
                    StateJson.write(dir.resolve(ProducerStateSnapshot.FILE_NAME), ps);
                    StateJson.write(dir.resolve(TxnIndexSnapshot.FILE_NAME), ts);
                    synchronized (checkpointLock) {
                        lastCheckpoint = new RecoveryCheckpoint(active.baseOffset(), active.size(), nextOffset);
                        StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), lastCheckpoint);
                    }
                    StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(epoch, nextOffset, logStartOffset));
                } catch (IOException | StorageException e) {
                    LOG.error("{}: clean close failed; the next open recovers from the log: {}", id, e.getMessage());
                    committer.fail(new StorageException(StorageException.Kind.IO, id + ": close failed: " + e.getMessage(), e));
                }
            } else {
                committer.fail(sticky);
            }
            for (Segment s : segments) {
                try {
                    s.close();
                } catch (IOException e) {
                    LOG.warn("{}: closing {} failed: {}", id, s, e.toString());
                }
            }
            for (Segment s : List.copyOf(removedOpen)) {
                closeRemoved(s);
            }
        } finally {
            lock.unlock();
            releaseLock();
            hwmWaiters.forEach(w -> w.future.complete(null));
            hwmWaiters.clear();
        }
    }

    private void releaseLock() {
        try {
            fileLock.release();
        } catch (IOException e) {
            LOG.warn("{}: releasing {} failed: {}", id, LOCK_FILE, e.toString());
        }
        closeQuietly(lockChannel);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }

    private long now() {
        return config.clock().millis();
    }

    /** A produce entry's batches, validated: headers and their start positions in {@code buffer}. */
    record Batches(ByteBuffer buffer, List<RecordBatchHeader> headers, int[] starts, long totalBytes, long recordCount) {
        static Batches parse(ByteBuffer buf) {
            List<RecordBatchHeader> headers = new ArrayList<>(1);
            int[] starts = new int[4];
            int pos = buf.position();
            long records = 0;
            while (pos < buf.limit()) {
                RecordBatchHeader h = BatchValidator.validateProduced(buf, pos, buf.limit());
                if (headers.size() == starts.length) {
                    starts = java.util.Arrays.copyOf(starts, starts.length * 2);
                }
                starts[headers.size()] = pos;
                headers.add(h);
                records += h.recordCount();
                pos += h.sizeInBytes();
            }
            if (headers.isEmpty()) {
                throw new CorruptBatchException(CorruptBatchException.Reason.TRUNCATED, 0, "no batch in the records");
            }
            return new Batches(buf, headers, starts, buf.limit() - buf.position(), records);
        }
    }
}
