package io.kaas.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's log cleaner: {@code log.cleaner.threads} threads named {@code kaas-log-cleaner-N}, owned by
 * the engine, which {@link #close()}s them before it closes any partition. Each thread walks the open
 * partitions in a random order and runs a pass on each one that is compacted and due
 * ({@link Partition#cleanIfDue}; a partition is cleaned by one thread at a time); after a round that
 * cleaned nothing it sleeps log.cleaner.backoff.ms. Stopping abandons a pass between reads (its
 * {@code .cleaned} files are removed; nothing half-swapped stays) and joins the threads.
 */
final class LogCleanerThreads implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogCleanerThreads.class);

    private final CleanerSettings settings;
    private final Supplier<List<Partition>> partitions;
    private final java.time.Clock clock;
    private final List<Thread> threads = new ArrayList<>();
    private final Object wake = new Object();
    private volatile boolean stopped;

    LogCleanerThreads(CleanerSettings settings, Supplier<List<Partition>> partitions, java.time.Clock clock) {
        this.settings = settings;
        this.partitions = partitions;
        this.clock = clock;
        for (int i = 1; i <= settings.threads(); i++) {
            Thread t = new Thread(this::loop, "kaas-log-cleaner-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /** One round over the partitions on the caller's thread: what each thread does between sleeps. */
    int runOnce() {
        List<Partition> all = new ArrayList<>(partitions.get());
        Collections.shuffle(all);
        int cleaned = 0;
        for (Partition p : all) {
            if (stopped) {
                break;
            }
            if (p.cleanIfDue(settings, clock.millis(), () -> stopped)
                    .filter(r -> r.endOffset() >= 0)
                    .isPresent()) {
                cleaned++;
            }
        }
        return cleaned;
    }

    private void loop() {
        while (!stopped) {
            int cleaned;
            try {
                cleaned = runOnce();
            } catch (RuntimeException e) {
                LOG.error("log cleaner round failed: {}", e.toString(), e);
                cleaned = 0;
            }
            if (cleaned == 0) {
                synchronized (wake) {
                    if (!stopped) {
                        try {
                            wake.wait(settings.backoff().toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        synchronized (wake) {
            wake.notifyAll();
        }
        for (Thread t : threads) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (t.isAlive()) {
                LOG.warn("{} did not stop within 30 s", t.getName());
            }
        }
    }
}
