package io.kaas.storage;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches the fsyncs in flight and gives up on one that has taken longer than the timeout (it becomes
 * the partition's sticky {@code STALLED} failure, see {@link GroupCommitter}).
 *
 * <p>Starting and ending a watch wakes no thread. An earlier design scheduled a timeout task per fsync on a
 * {@code ScheduledThreadPoolExecutor} and cancelled it afterwards; each schedule signalled the timer
 * thread, so every acks=all Produce paid for two more context switches (the timer waking and parking
 * again, and the appender being preempted by it): a sixth of the switches of a one-record request, and on
 * a broker pinned to one core each switch is CPU time the request pays for. Here a single check runs
 * every {@link #period} while fsyncs start, and stops after a period in which none did, so the timer
 * thread wakes a few times a second under load and never at rest.
 *
 * <p>The price is precision: a stall is declared between {@code timeout} and {@code timeout + period}
 * after its fsync began (period = a quarter of the timeout, at most a second), instead of at exactly the
 * timeout. The limit is there to stop a hung disk holding acknowledgements for ever; a quarter more is the
 * same promise.
 */
final class FsyncWatchdog implements AutoCloseable {
    /** One fsync being watched. */
    final class Watch {
        private final long startedNanos = System.nanoTime();
        private final Runnable onTimeout;
        /** Set once: by {@link #end} (the fsync returned) or by the check (it is declared stalled). */
        private final AtomicBoolean settled = new AtomicBoolean();

        private Watch(Runnable onTimeout) {
            this.onTimeout = onTimeout;
        }

        /** The fsync returned; true unless it had already been declared stalled (its timeout action ran or runs). */
        boolean end() {
            inFlight.remove(this);
            return settled.compareAndSet(false, true);
        }

        private void checkAt(long nowNanos) {
            if (nowNanos - startedNanos >= timeoutNanos && settled.compareAndSet(false, true)) {
                inFlight.remove(this);
                onTimeout.run();
            }
        }
    }

    private final long timeoutNanos;
    private final long periodNanos;
    private final ScheduledThreadPoolExecutor timer;
    private final Set<Watch> inFlight = ConcurrentHashMap.newKeySet();
    /** Watches started so far: a check that saw this move schedules the next one, even if none is in flight now. */
    private final AtomicLong started = new AtomicLong();
    /** A check is scheduled (at most one at a time). */
    private final AtomicBoolean armed = new AtomicBoolean();

    private long startedAtLastCheck; // the timer thread's own
    private final AtomicLong checks = new AtomicLong();
    private volatile boolean closed;

    FsyncWatchdog(Duration timeout, ThreadFactory threads) {
        this.timeoutNanos = timeout.toNanos();
        this.periodNanos = period(timeout).toNanos();
        this.timer = new ScheduledThreadPoolExecutor(1, threads);
    }

    /** How often a check runs while fsyncs are in flight: a quarter of the timeout, at most a second, at least a millisecond. */
    static Duration period(Duration timeout) {
        Duration quarter = timeout.dividedBy(4);
        if (quarter.compareTo(Duration.ofSeconds(1)) > 0) {
            return Duration.ofSeconds(1);
        }
        return quarter.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : quarter;
    }

    Duration timeout() {
        return Duration.ofNanos(timeoutNanos);
    }

    /**
     * Starts watching an fsync about to begin; {@code onTimeout} runs once, on the timer thread, if it is still
     * in flight past the timeout. Throws {@link RejectedExecutionException} once the watchdog is closed.
     */
    Watch start(Runnable onTimeout) {
        if (closed) {
            throw new RejectedExecutionException("the fsync watchdog is closed");
        }
        Watch w = new Watch(onTimeout);
        inFlight.add(w);
        started.incrementAndGet();
        // Read after the add: either this arms the check, or the check that is about to disarm sees the add.
        if (!armed.get() && armed.compareAndSet(false, true)) {
            try {
                schedule();
            } catch (RejectedExecutionException e) {
                inFlight.remove(w); // closed meanwhile: the caller's fsync is not watched, and not left behind
                throw e;
            }
        }
        return w;
    }

    private void schedule() {
        try {
            timer.schedule(this::check, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            armed.set(false);
            throw e;
        }
    }

    private void check() {
        checks.incrementAndGet();
        long now = System.nanoTime();
        for (Watch w : inFlight) {
            w.checkAt(now);
        }
        armed.set(false);
        long s = started.get();
        boolean active = s != startedAtLastCheck || !inFlight.isEmpty();
        startedAtLastCheck = s;
        if (active && !closed && armed.compareAndSet(false, true)) {
            try {
                schedule();
            } catch (RejectedExecutionException e) {
                // closed meanwhile: nothing more to watch
            }
        }
    }

    /** Fsyncs being watched now (tests). */
    int inFlight() {
        return inFlight.size();
    }

    /** Checks run so far (tests: a few per period under load, not one per fsync). */
    long checks() {
        return checks.get();
    }

    /** A check is scheduled (tests: none at rest). */
    boolean armed() {
        return armed.get();
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
