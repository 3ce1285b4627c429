package io.kaas.cluster;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this broker's lease alive and says, at any instant, whether the broker may still acknowledge a
 * write: the self-fence.
 *
 * <p>The promise: {@link #mayAcknowledge()} turns false strictly before the store can expire the lease.
 * A renewal sent at monotonic time {@code t} that the store answered with {@code ttl} left means the store
 * expires the lease no earlier than {@code t + ttl} (it counts from when it received the call, which is
 * after {@code t}), so acknowledging is allowed until {@code t + ttl − margin}. The time is
 * {@link System#nanoTime()}-like (monotonic; wall-clock jumps do not move it), and the check is against
 * the clock at the moment of asking, so a process stopped (SIGSTOP, a long GC pause) past the deadline
 * finds itself fenced the instant it runs again, before any renewal thread had a chance to run. The
 * margin covers clock-rate drift between the broker and the store and the time from the check to the
 * bytes leaving the socket.
 *
 * <p>A renewal that finds the lease gone ({@link Duration#ZERO}) makes the fence permanent: a lost lease
 * never comes back, a new one is a new membership. Renewals run every ttl/4 on the given scheduler
 * (fixed delay); a failed one only logs: the deadline simply stops moving.
 */
public final class LeaseKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final ClusterStore store;
    private final long lease;
    private final Duration ttl;
    private final long marginNanos;
    private final LongSupplier nanoClock;
    private final Runnable onLost;
    /** Monotonic time after which no write may be acknowledged; only ever moved forward. */
    private volatile long deadlineNanos;

    private volatile boolean lost;
    private ScheduledFuture<?> task;

    /**
     * @param grantedAtNanos monotonic time just before the lease was granted (its first deadline counts from there)
     * @param onLost         called once, on the renewal thread, when the lease is found gone
     */
    public LeaseKeeper(
            ClusterStore store,
            long lease,
            Duration ttl,
            Duration margin,
            LongSupplier nanoClock,
            long grantedAtNanos,
            Runnable onLost) {
        if (margin.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException(
                    "the self-fence margin " + margin + " must be shorter than the lease TTL " + ttl);
        }
        this.store = store;
        this.lease = lease;
        this.ttl = ttl;
        this.marginNanos = margin.toNanos();
        this.nanoClock = nanoClock;
        this.onLost = onLost;
        this.deadlineNanos = grantedAtNanos + ttl.toNanos() - marginNanos;
    }

    public long lease() {
        return lease;
    }

    /** Renews every ttl/4 on {@code scheduler} until {@link #close()}. */
    public synchronized void start(ScheduledExecutorService scheduler) {
        long every = Math.max(1, ttl.toMillis() / 4);
        task = scheduler.scheduleWithFixedDelay(this::renewOnce, every, every, TimeUnit.MILLISECONDS);
    }

    /** One renewal (the scheduler's; tests call it directly). */
    public void renewOnce() {
        if (lost) {
            return;
        }
        long sent = nanoClock.getAsLong();
        Duration left;
        try {
            left = store.renewLease(lease);
        } catch (RuntimeException e) {
            LOG.warn(
                    "lease {} renewal failed ({} ms of acknowledging left): {}",
                    Long.toHexString(lease),
                    Math.max(0, (deadlineNanos - nanoClock.getAsLong()) / 1_000_000),
                    e.getMessage());
            return;
        }
        if (left.isZero() || left.isNegative()) {
            lost = true;
            LOG.error("lease {} is gone: this broker is fenced and owns nothing any more", Long.toHexString(lease));
            onLost.run();
            return;
        }
        long next = sent + Math.min(left.toNanos(), ttl.toNanos()) - marginNanos;
        if (next - deadlineNanos > 0) {
            deadlineNanos = next;
        }
    }

    /**
     * Whether a write may be acknowledged now. Call it after the fsync and immediately before answering,
     * never cache it.
     */
    public boolean mayAcknowledge() {
        return !lost && deadlineNanos - nanoClock.getAsLong() > 0;
    }

    /** True once a renewal found the lease gone: permanent. */
    public boolean lost() {
        return lost;
    }

    /** The monotonic instant acknowledging stops unless a renewal moves it. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel(false);
        }
        lost = true;
    }
}
