package io.kaas.storage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's threads, owned by the engine and stopped by {@link #close()}:
 * {@code kaas-committer-N} (fsync drains and checkpoint refreshes, see {@link #COMMITTER_THREADS}),
 * {@code kaas-fsync-watchdog} (the {@link FsyncWatchdog}'s timer) and
 * {@code kaas-partition-loader-N} (a bounded pool that opens partitions at start-up and topic creation:
 * recovery scans, state files and the first segment's fsyncs, several at once because the disk serves
 * them in parallel), and {@code kaas-partition-closer-N} while the engine closes.
 */
public final class EngineExecutors implements AutoCloseable {
    /** Loads at once: small files and fsyncs, so more than the cores, bounded so start-up cannot flood the disk. */
    static final int LOADER_THREADS =
            Math.max(4, Math.min(16, 4 * Runtime.getRuntime().availableProcessors()));
    /**
     * fsync drains at once. Bounded, so twenty thousand partitions asking for their first fsync together
     * (a restart under load) queue on a few dozen threads instead of starting a thread each; many, because
     * the disk serves concurrent fsyncs of different files together (ext4 commits them in one journal
     * transaction), so fewer would serialise them. Drains queued behind busy threads are taken without a
     * thread switch. A drain whose fsync hangs past the watchdog gets a replacement thread
     * ({@link #committerStuck}), so a hung partition pins one thread and never shrinks the others' share.
     */
    static final int COMMITTER_THREADS = 32;
    /**
     * Topics of one CreateTopics created at once ({@link StorageEngine#createTopics}). Creating a topic is
     * a chain of small fsyncs (its files, then each partition's first segment and manifest); one chain at a
     * time leaves the disk idle between them, while it serves a few dozen concurrent fsyncs of different
     * files in about the time of one.
     */
    static final int CREATOR_THREADS = 16;

    private final ThreadPoolExecutor committers;
    private final ThreadPoolExecutor creators;
    private final FsyncWatchdog watchdog;
    private final ThreadPoolExecutor loaders;
    /** Set while a task of {@link #runningLastDrainOnTaskThread} runs on this thread: the last drain it asked for. */
    private final ThreadLocal<Runnable[]> lastDrain = new ThreadLocal<>();

    /** @param fsyncTimeout an fsync slower than this makes its partition {@code STALLED} ({@link FsyncWatchdog}) */
    public EngineExecutors(Duration fsyncTimeout) {
        this.loaders = new ThreadPoolExecutor(
                LOADER_THREADS,
                LOADER_THREADS,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                named("kaas-partition-loader-"));
        this.committers = new ThreadPoolExecutor(
                COMMITTER_THREADS,
                COMMITTER_THREADS,
                60,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                named("kaas-committer-"));
        // An idle engine holds no committer thread.
        committers.allowCoreThreadTimeOut(true);
        this.creators = new ThreadPoolExecutor(
                CREATOR_THREADS,
                CREATOR_THREADS,
                60,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                named("kaas-topic-creator-"));
        creators.allowCoreThreadTimeOut(true);
        this.watchdog = new FsyncWatchdog(fsyncTimeout, named("kaas-fsync-watchdog"));
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

    /**
     * The committers as {@link GroupCommitter} uses them: a drain asked for inside a task of
     * {@link #runningLastDrainOnTaskThread} waits in that task's slot, else it goes to a committer at once.
     */
    GroupCommitter.Pool committerPool() {
        return new GroupCommitter.Pool() {
            @Override
            public void execute(Runnable drain) {
                Runnable[] slot = lastDrain.get();
                if (slot == null) {
                    committers.execute(drain);
                    return;
                }
                Runnable earlier = slot[0];
                slot[0] = drain;
                if (earlier != null) {
                    committers.execute(earlier); // not the last one after all: it starts now, beside the others
                }
            }

            @Override
            public void threadStuck() {
                committerStuck();
            }

            @Override
            public void threadFreed() {
                committerFreed();
            }
        };
    }

    /**
     * Tasks on {@code pool}, each followed on its own thread by the last fsync drain it asked for
     * (the earlier ones went to the committers as soon as the next was asked for, so they run in parallel
     * as before). A thread that appends and then has nothing left to do fsyncs itself instead of waking a
     * committer thread and parking: one thread switch less per group commit, a quarter of the switches of
     * an acks=all Produce (network, handler, committer, network). The task's own result is complete before
     * the drain starts. A drain that hangs holds the task's thread (and the partition fails at the watchdog,
     * as on a committer). A task must never block on the acknowledgement of its own acks=all append: that
     * append's fsync may be the one waiting for the task to end (the broker's handlers return futures).
     */
    Executor runningLastDrainOnTaskThread(Executor pool) {
        return task -> pool.execute(() -> {
            if (lastDrain.get() != null) {
                task.run(); // run inside another such task: its slot collects the drains
                return;
            }
            Runnable[] slot = new Runnable[1];
            lastDrain.set(slot);
            try {
                task.run();
            } finally {
                lastDrain.remove();
            }
            if (slot[0] != null) {
                slot[0].run();
            }
        });
    }

    /** A committer thread is stuck in an fsync the watchdog gave up on: one more thread while it stays stuck. */
    synchronized void committerStuck() {
        committers.setMaximumPoolSize(committers.getMaximumPoolSize() + 1);
        committers.setCorePoolSize(committers.getCorePoolSize() + 1);
    }

    /** The stuck fsync returned after all: its thread is back, the extra one goes. */
    synchronized void committerFreed() {
        committers.setCorePoolSize(committers.getCorePoolSize() - 1);
        committers.setMaximumPoolSize(committers.getMaximumPoolSize() - 1);
    }

    /** Committer threads allowed now ({@link #COMMITTER_THREADS} plus one per fsync stuck past the watchdog). */
    int committerThreads() {
        return committers.getMaximumPoolSize();
    }

    FsyncWatchdog watchdog() {
        return watchdog;
    }

    public ExecutorService loaders() {
        return loaders;
    }

    /** Where {@link StorageEngine#createTopics} creates each topic (its partitions load on the same thread). */
    ExecutorService creators() {
        return creators;
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
        // Not awaited, not interrupted: each queued creation still runs, to fail at once on the closed engine
        // (so its caller hears back); one in progress ends its files and is refused before it is published.
        creators.shutdown();
        stopLoaders();
        // Committers first: a drain still running is watched for each fsync it issues.
        committers.shutdown();
        try {
            // A hung fsync never returns: don't wait on it for long.
            committers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watchdog.close();
        committers.shutdownNow();
    }
}
