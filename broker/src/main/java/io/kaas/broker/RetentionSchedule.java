package io.kaas.broker;

import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.storage.StorageEngine;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic retention pass ({@code log.retention.check.interval.ms}) on its own {@code kaas-retention}
 * thread, which {@link #close} stops. A failed pass is logged and the next one runs on schedule: retention
 * never takes the broker down.
 */
final class RetentionSchedule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSchedule.class);

    private final ScheduledExecutorService thread;

    private RetentionSchedule(ScheduledExecutorService thread) {
        this.thread = thread;
    }

    /** Starts the schedule; a zero or negative interval turns retention checks off (nothing runs). */
    static RetentionSchedule start(Duration interval, StorageEngine engine, BrokerMetrics metrics) {
        long intervalMs = interval.toMillis();
        if (intervalMs <= 0) {
            LOG.info("retention checks disabled");
            return new RetentionSchedule(null);
        }
        ScheduledExecutorService thread =
                Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-retention", true));
        thread.scheduleWithFixedDelay(() -> runOnce(engine, metrics), intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        return new RetentionSchedule(thread);
    }

    private static void runOnce(StorageEngine engine, BrokerMetrics metrics) {
        try {
            int removed = engine.runRetention(System.currentTimeMillis());
            metrics.retentionRan(removed);
            if (removed > 0) {
                LOG.info("retention removed {} segments", removed);
            }
        } catch (RuntimeException e) {
            LOG.warn("retention pass failed", e);
        }
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
