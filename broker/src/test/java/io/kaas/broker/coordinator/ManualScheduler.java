package io.kaas.broker.coordinator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fake time for the coordinators' unit tests: a {@link ScheduledExecutorService} whose tasks run only when the test
 * {@link #advance advances} time, on the test's thread, in due order; and the {@link Clock} of the same time. So a
 * session timeout of 10 s expires in a test at once, and never by itself. {@code execute} runs at once. Not
 * thread-safe beyond what its callers need: tasks may be scheduled from any thread, they run only in {@link #advance}.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long nowNanos;
    private long sequence;
    private boolean shutdown;
    private final Instant epoch = Instant.parse("2026-01-01T00:00:00Z");

    /** The time of this scheduler as a wall clock (starting 2026-01-01). */
    public Clock clock() {
        ManualScheduler self = this;
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                synchronized (self) {
                    return epoch.plusNanos(nowNanos);
                }
            }
        };
    }

    /** Moves time on by {@code d}, running every task due by then (and those they schedule within it), in due order. */
    public void advance(Duration d) {
        long until;
        synchronized (this) {
            until = nowNanos + d.toNanos();
        }
        while (true) {
            Task<?> next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.dueNanos > until) {
                    nowNanos = until;
                    return;
                }
                queue.poll();
                nowNanos = Math.max(nowNanos, next.dueNanos);
            }
            next.runOnce();
        }
    }

    /** Tasks scheduled and not yet run or cancelled. */
    public synchronized int pending() {
        return (int) queue.stream().filter(t -> !t.isCancelled()).count();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return schedule(
                () -> {
                    command.run();
                    return null;
                },
                delay,
                unit);
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Task<V> t = new Task<>(callable, nowNanos + unit.toNanos(Math.max(delay, 0)), sequence++);
        queue.add(t);
        return t;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("the coordinators schedule one-shot tasks only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("the coordinators schedule one-shot tasks only");
    }

    @Override
    public void execute(Runnable command) {
        command.run();
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(queue);
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }

    private final class Task<V> implements ScheduledFuture<V>, Runnable {
        private final Callable<V> body;
        private final long dueNanos;
        private final long order;
        private boolean cancelled;
        private boolean done;
        private V result;
        private Exception failure;

        Task(Callable<V> body, long dueNanos, long order) {
            this.body = body;
            this.dueNanos = dueNanos;
            this.order = order;
        }

        void runOnce() {
            synchronized (ManualScheduler.this) {
                if (cancelled || done) {
                    return;
                }
            }
            try {
                V v = body.call();
                synchronized (ManualScheduler.this) {
                    result = v;
                }
            } catch (Exception e) {
                synchronized (ManualScheduler.this) {
                    failure = e;
                }
            }
            synchronized (ManualScheduler.this) {
                done = true;
            }
        }

        @Override
        public void run() {
            runOnce();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (ManualScheduler.this) {
                return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed o) {
            Task<?> other = (Task<?>) o;
            int c = Long.compare(dueNanos, other.dueNanos);
            return c != 0 ? c : Long.compare(order, other.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (ManualScheduler.this) {
                if (done) {
                    return false;
                }
                cancelled = true;
                queue.remove(this);
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (ManualScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (ManualScheduler.this) {
                return done || cancelled;
            }
        }

        @Override
        public V get() throws ExecutionException {
            synchronized (ManualScheduler.this) {
                if (cancelled) {
                    throw new CancellationException();
                }
                if (!done) {
                    throw new IllegalStateException("not run yet: advance the scheduler's time");
                }
                if (failure != null) {
                    throw new ExecutionException(failure);
                }
                return result;
            }
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws ExecutionException {
            return get();
        }
    }
}
