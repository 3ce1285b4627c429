package io.kaas.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's threads, owned by the engine and stopped by {@link #close()}:
 * {@code kaas-committer-N} (fsync drains and checkpoint refreshes; a cached pool, so a partition whose
 * fsync hangs pins one thread, never the others') and {@code kaas-fsync-watchdog} (one timer).
 */
public final class EngineExecutors implements AutoCloseable {
    private final ExecutorService committers;
    private final ScheduledExecutorService watchdog;

    public EngineExecutors() {
        this.committers = Executors.newCachedThreadPool(named("kaas-committer-"));
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, named("kaas-fsync-watchdog"));
        // Every fsync schedules and cancels a timeout: drop cancelled ones instead of keeping them queued.
        timer.setRemoveOnCancelPolicy(true);
        this.watchdog = timer;
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix.endsWith("-") ? prefix + n.incrementAndGet() : prefix);
            t.setDaemon(true);
            return t;
        };
    }

    public ExecutorService committers() {
        return committers;
    }

    public ScheduledExecutorService watchdog() {
        return watchdog;
    }

    @Override
    public void close() {
        // Committers first: a drain still running schedules a watchdog timeout for each fsync it issues.
        committers.shutdown();
        try {
            // A hung fsync never returns: don't wait on it for long.
            committers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watchdog.shutdownNow();
        committers.shutdownNow();
    }
}
