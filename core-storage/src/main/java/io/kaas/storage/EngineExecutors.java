package io.kaas.storage;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's threads, owned by the engine and stopped by {@link #close()}:
 * {@code kaas-committer-N} (fsync drains and checkpoint refreshes; a cached pool, so a partition whose
 * fsync hangs pins one thread, never the others'), {@code kaas-fsync-watchdog} (one timer) and
 * {@code kaas-partition-loader-N} (a bounded pool that opens partitions at start-up and topic creation:
 * recovery scans, state files and the first segment's fsyncs, several at once because the disk serves
 * them in parallel), and {@code kaas-partition-closer-N} while the engine closes.
 */
public final class EngineExecutors implements AutoCloseable {
    /** Loads at once: small files and fsyncs, so more than the cores, bounded so start-up cannot flood the disk. */
    static final int LOADER_THREADS = Math.max(4, Math.min(16, 4 * Runtime.getRuntime().availableProcessors()));
    private final ExecutorService committers;
    private final ScheduledExecutorService watchdog;
    private final ThreadPoolExecutor loaders;

    public EngineExecutors() {
        this.loaders = new ThreadPoolExecutor(LOADER_THREADS, LOADER_THREADS, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), named("kaas-partition-loader-"));
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

    public ExecutorService loaders() {
        return loaders;
    }

    /**
     * Drops queued loads and waits for those running. Not interrupted: an interrupt closes the NIO
     * channel a load is writing through, and the engine closes every partition once they are done.
     */
    public void stopLoaders() {
        loaders.getQueue().clear();
        loaders.shutdown();
        try {
            loaders.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code tasks} on {@link #LOADER_THREADS} threads named {@code kaas-partition-closer-N}, started
     * for this call and stopped before it returns: the engine's close, where every partition fsyncs and
     * writes its state files, which the disk serves several at once.
     */
    public static void runInParallel(List<Runnable> tasks) {
        ExecutorService closers = Executors.newFixedThreadPool(LOADER_THREADS, named("kaas-partition-closer-"));
        try {
            tasks.forEach(closers::execute);
        } finally {
            closers.shutdown();
            boolean done = false;
            while (!done) {
                try {
                    done = closers.awaitTermination(1, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    done = true; // the caller is being stopped: the closes go on, without us waiting
                }
            }
        }
    }

    @Override
    public void close() {
        stopLoaders();
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
