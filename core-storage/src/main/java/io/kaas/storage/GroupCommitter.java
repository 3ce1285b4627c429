package io.kaas.storage;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One partition's fsync coalescer. Appenders bump a flush sequence under the partition lock and
 * call {@link #request()}; at most one drain task per partition runs on the shared committer pool
 * (so ten thousand partitions cost no threads), and each fsync it issues completes every waiter
 * whose sequence is ≤ the one captured before the fsync began. N concurrent appenders therefore
 * share one fsync.
 *
 * <p>The fsync runs outside the partition lock: appenders keep writing while it is in flight, and
 * the captured target says exactly which bytes it covers. The engine's {@link FsyncWatchdog} turns an
 * fsync slower than the limit into a sticky {@code STALLED} failure: every waiter fails at once and
 * the partition refuses appends until reopened; the hung fsync thread is abandoned, never awaited.
 * After any fsync error nothing more is acknowledged (the kernel may have dropped the dirty pages:
 * retrying fsync could report success for data that is gone).
 */
final class GroupCommitter {
    /** What one fsync covers: every append with flush sequence ≤ seq, i.e. bytes [0, bytePos) of segment. */
    record FlushTarget(long seq, Segment segment, long bytePos, long highWatermark) {}

    /** The partition side: capture a target under its lock, learn of success and failure. */
    interface Log {
        long requestedSeq();

        FlushTarget capture();

        void flushed(FlushTarget target);

        /** An fsync succeeded: how long it took and how many flush requests it completed (for metrics). */
        void fsynced(long durationNanos, long appendsCovered);

        void failed(StorageException e);

        String describe();
    }

    private record Waiter(long seq, CompletableFuture<Void> future) {}

    /** Where drains run, told when one of its threads is stuck in an fsync and when it is back. */
    interface Pool extends Executor {
        void threadStuck();

        void threadFreed();
    }

    private final Log log;
    private final Pool pool;
    private final FsyncWatchdog watchdog;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong fsyncs = new AtomicLong();
    private final Object waitersLock = new Object();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.seq, b.seq));
    private long completedSeq;
    private StorageException failure;

    GroupCommitter(Log log, Pool pool, FsyncWatchdog watchdog) {
        this.log = log;
        this.pool = pool;
        this.watchdog = watchdog;
    }

    /** Ask for an fsync covering everything appended so far; coalesces with one in flight. */
    void request() {
        if (scheduled.compareAndSet(false, true)) {
            pool.execute(this::drain);
        }
    }

    /** Completes once an fsync covering {@code seq} succeeded; fails if fsync failed or stalled. */
    CompletableFuture<Void> await(long seq) {
        synchronized (waitersLock) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (seq <= completedSeq) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            waiters.add(new Waiter(seq, f));
            return f;
        }
    }

    long fsyncCount() {
        return fsyncs.get();
    }

    long completedSeq() {
        synchronized (waitersLock) {
            return completedSeq;
        }
    }

    private void drain() {
        while (true) {
            if (failed() || log.requestedSeq() <= completedSeq()) {
                scheduled.set(false);
                // An appender may have bumped the sequence after our check but before the flag cleared.
                if (!failed() && log.requestedSeq() > completedSeq() && scheduled.compareAndSet(false, true)) {
                    continue;
                }
                return;
            }
            FlushTarget target;
            try {
                target = log.capture();
            } catch (StorageException e) {
                fail(e);
                return;
            }
            if (target == null || !fsync(target, true)) {
                return;
            }
            complete(target.seq());
            log.flushed(target);
        }
    }

    /**
     * Runs one fsync under the watchdog; returns false if the partition failed. {@code onPool}: this is a
     * drain on the committer pool, which gets a replacement thread while the fsync is stuck past the limit.
     */
    boolean fsync(FlushTarget target, boolean onPool) {
        FsyncWatchdog.Watch dog;
        try {
            dog = watchdog.start(() -> {
                if (onPool) {
                    pool.threadStuck();
                }
                fail(new StorageException(
                        StorageException.Kind.STALLED,
                        log.describe() + ": fsync of " + target.segment().logFile() + " took longer than "
                                + watchdog.timeout().toMillis()
                                + " ms; the partition is stalled and refuses appends until it is reopened"));
            });
        } catch (RejectedExecutionException e) {
            // The engine is closing (a drain outlived the committers' grace period): close did the final fsync.
            fail(new StorageException(StorageException.Kind.CLOSED, log.describe() + " is closed", e));
            return false;
        }
        try {
            long start = System.nanoTime();
            target.segment().flush();
            long took = System.nanoTime() - start;
            fsyncs.incrementAndGet();
            log.fsynced(took, Math.max(0, target.seq() - completedSeq()));
        } catch (ClosedChannelException e) {
            // Rolled (sealed ⇒ fsynced by roll) or closed after a final flush: nothing is lost.
            if (!target.segment().isSealed()) {
                fail(new StorageException(StorageException.Kind.CLOSED, log.describe() + " is closed", e));
                return false;
            }
        } catch (IOException | RuntimeException e) {
            fail(new StorageException(
                    StorageException.Kind.IO,
                    log.describe() + ": fsync of " + target.segment().logFile()
                            + " failed (" + e.getMessage()
                            + "); nothing after the last successful fsync is acknowledged,"
                            + " and the partition refuses appends until it is reopened",
                    e));
            return false;
        } finally {
            if (!dog.end() && onPool) {
                pool.threadFreed(); // the watchdog had declared it stuck: the fsync came back after all
            }
        }
        return !failed();
    }

    private boolean failed() {
        synchronized (waitersLock) {
            return failure != null;
        }
    }

    /** Marks everything up to {@code seq} durable (also used by close after its own fsync). */
    void complete(long seq) {
        List<Waiter> done = new ArrayList<>();
        synchronized (waitersLock) {
            if (failure != null) {
                return;
            }
            completedSeq = Math.max(completedSeq, seq);
            while (!waiters.isEmpty() && waiters.peek().seq <= completedSeq) {
                done.add(waiters.poll());
            }
        }
        done.forEach(w -> w.future.complete(null));
    }

    /** Sticky failure: fails every waiter now and every later await. */
    void fail(StorageException e) {
        List<Waiter> all;
        synchronized (waitersLock) {
            if (failure != null) {
                return;
            }
            failure = e;
            all = new ArrayList<>(waiters);
            waiters.clear();
        }
        log.failed(e);
        all.forEach(w -> w.future.completeExceptionally(e));
    }
}
