package io.kaas.storage;

import io.kaas.storage.io.StorageException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads every partition of a data directory when the engine starts, on the engine's bounded loader
 * pool, and counts how far it got: the engine is {@link StorageEngine#ready ready} once every partition
 * was loaded (recovered, if it was not closed cleanly) or refused. A partition asked for before its
 * turn is loaded at once by the caller; its queued load then finds it loaded.
 */
final class StartupLoad {
    private static final Logger LOG = LoggerFactory.getLogger(StartupLoad.class);

    private final int total;
    private final AtomicInteger loaded = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final long startNanos = System.nanoTime();

    private StartupLoad(int total) {
        this.total = total;
    }

    /** Starts loading {@code partitions} with {@code load} on {@code pool}. */
    static StartupLoad start(List<TopicPartition> partitions, Consumer<TopicPartition> load, ExecutorService pool) {
        StartupLoad s = new StartupLoad(partitions.size());
        if (partitions.isEmpty()) {
            s.done.complete(null);
            return s;
        }
        for (TopicPartition tp : partitions) {
            try {
                pool.execute(() -> s.run(tp, load));
            } catch (RejectedExecutionException e) {
                s.finished(false); // the engine is closing
            }
        }
        return s;
    }

    private void run(TopicPartition tp, Consumer<TopicPartition> load) {
        boolean ok = false;
        try {
            load.accept(tp);
            ok = true;
        } catch (StorageException e) {
            // Closing, or the topic was deleted before its turn: nothing to say.
            if (e.kind() != StorageException.Kind.CLOSED
                    && e.kind() != StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION) {
                LOG.error("{}: not loaded at start-up: {}", tp, e.getMessage());
            }
        } catch (RuntimeException e) {
            LOG.error("{}: not loaded at start-up", tp, e);
        } finally {
            finished(ok);
        }
    }

    private void finished(boolean ok) {
        if (ok) {
            loaded.incrementAndGet();
        } else {
            failed.incrementAndGet();
        }
        if (loaded.get() + failed.get() == total) {
            LOG.info(
                    "storage ready: {} partitions loaded, {} refused, in {} ms",
                    loaded.get(),
                    failed.get(),
                    (System.nanoTime() - startNanos) / 1_000_000);
            done.complete(null);
        }
    }

    StorageEngine.LoadProgress progress() {
        return new StorageEngine.LoadProgress(total, loaded.get(), failed.get());
    }

    boolean ready() {
        return done.isDone();
    }

    CompletableFuture<Void> whenReady() {
        return done;
    }
}
