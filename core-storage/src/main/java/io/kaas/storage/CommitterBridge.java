package io.kaas.storage;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition's side of group commit: owns its {@link GroupCommitter}, captures what an fsync covers
 * under the partition lock, refreshes the recovery checkpoint after an fsync ({@link CheckpointKeeper}),
 * and turns a failed fsync into the partition's sticky failure.
 *
 * <p>Threads: {@link #request}, {@link #await} and {@link #flushNow} run on appenders; the
 * {@link GroupCommitter.Log} callbacks on a {@code kaas-committer} thread (or the watchdog, for
 * {@code failed}). {@code capture} and the checkpoint refresh take the partition lock through
 * {@link PartitionCore}; the fsync itself runs outside it.
 */
final class CommitterBridge implements GroupCommitter.Log {
    private static final Logger LOG = LoggerFactory.getLogger(CommitterBridge.class);

    private final TopicPartition id;
    private final PartitionCore core;
    private final EngineObserver observer;
    private final GroupCommitter committer;

    CommitterBridge(TopicPartition id, PartitionCore core, EngineExecutors executors, EngineObserver observer) {
        this.id = id;
        this.core = core;
        this.observer = observer;
        this.committer = new GroupCommitter(this, executors.committerPool(), executors.watchdog());
    }

    /** Asks for an fsync of everything appended so far (an append crossed the flush interval). */
    void request() {
        committer.request();
    }

    /** Completes once an fsync covering flush sequence {@code seq} succeeded; fails with the partition's failure. */
    CompletableFuture<Void> await(long seq) {
        return committer.await(seq);
    }

    /** {@link PartitionLog#flush}: an fsync of everything appended so far, on the calling thread. */
    void flushNow() {
        GroupCommitter.FlushTarget t = core.read(g -> {
            core.ensureOpen();
            return flushTarget(g);
        });
        if (!committer.fsync(t, false)) {
            throw core.sticky();
        }
        committer.complete(t.seq());
    }

    /** Close: everything up to the last requested flush was fsynced by the caller. Holds lock. */
    void completeAll() {
        committer.complete(core.requestedFlushSeq());
    }

    /** Fails every waiter, now and later, with {@code e}: nothing more is acknowledged. */
    void failAll(StorageException e) {
        committer.fail(e);
    }

    long fsyncCount() {
        return committer.fsyncCount();
    }

    @Override
    public long requestedSeq() {
        return core.requestedFlushSeq();
    }

    @Override
    public GroupCommitter.FlushTarget capture() {
        return core.read(this::flushTarget);
    }

    /** Runs on the committer after each fsync: {@link CheckpointKeeper#refreshIfDue}, under the lock. */
    @Override
    public void flushed(GroupCommitter.FlushTarget t) {
        core.read(g -> {
            if (core.healthy()) { // close writes its own checkpoint; after a failure nothing more is claimed
                g.checkpoints.refreshIfDue(t.segment(), t.bytePos(), t.highWatermark(), g.producers, g.txns);
            }
            return null;
        });
    }

    @Override
    public void fsynced(long durationNanos, long appendsCovered) {
        observer.fsynced(id, durationNanos, appendsCovered);
    }

    @Override
    public void failed(StorageException e) {
        core.fail(e);
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

    /** Everything appended so far, as the committer fsyncs it. Holds lock. */
    private GroupCommitter.FlushTarget flushTarget(GuardedState g) {
        Segment active = g.log.active();
        return new GroupCommitter.FlushTarget(core.requestedFlushSeq(), active, active.size(), g.log.nextOffset());
    }
}
