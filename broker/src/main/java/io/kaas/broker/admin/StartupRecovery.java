package io.kaas.broker.admin;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.StorageException;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens (recovers) every partition on the data dir at start, one by one on {@code kaas-startup-recovery},
 * after the listeners are bound. The engine would open each on first use anyway; doing it eagerly lets
 * {@code /readyz} say when the broker has recovered everything, and moves recovery off the first
 * client's request. A partition that cannot be opened (damage) is recorded and skipped: the others are
 * served, and readiness reports it.
 */
public final class StartupRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final StorageEngine engine;
    private final Map<TopicPartition, String> failed = new ConcurrentSkipListMap<>(
            (a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
    private volatile int total = -1;
    private volatile int opened;
    private volatile boolean done;
    private volatile boolean stopping;
    private Thread thread;

    public StartupRecovery(StorageEngine engine) {
        this.engine = engine;
    }

    public synchronized void start() {
        thread = new Thread(this::run, "kaas-startup-recovery");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        List<TopicPartition> all = new ArrayList<>();
        for (TopicInfo t : engine.topics()) {
            for (int p = 0; p < t.partitions(); p++) {
                all.add(new TopicPartition(t.name(), p));
            }
        }
        total = all.size();
        long start = System.nanoTime();
        for (TopicPartition tp : all) {
            if (stopping) {
                return;
            }
            try {
                engine.partition(tp);
            } catch (StorageException e) {
                if (e.kind() == StorageException.Kind.CLOSED) {
                    return; // the broker is stopping
                }
                if (e.kind() != StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION) { // deleted meanwhile: nothing to serve
                    failed.put(tp, e.getMessage());
                    LOG.error("{}: cannot open: {}", tp, e.getMessage());
                }
            } catch (RuntimeException e) {
                failed.put(tp, e.toString());
                LOG.error("{}: cannot open", tp, e);
            }
            opened++;
        }
        done = true;
        LOG.info("startup recovery: {} partitions opened in {} ms, {} failed", all.size() - failed.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), failed.size());
    }

    /** True once every partition present at start was tried. */
    public boolean done() {
        return done;
    }

    /** Partitions tried so far, and how many there are (-1 until listed). */
    public int opened() {
        return opened;
    }

    public int total() {
        return total;
    }

    /** Partitions that could not be opened, with why. */
    public Map<TopicPartition, String> failed() {
        return Map.copyOf(failed);
    }

    /** Stops after the partition being opened now; waits up to {@code timeoutMs} for that. */
    public void stop(long timeoutMs) throws InterruptedException {
        stopping = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.join(timeoutMs);
        }
    }
}
