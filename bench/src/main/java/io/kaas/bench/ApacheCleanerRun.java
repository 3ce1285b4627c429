package io.kaas.bench;

import java.io.File;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.CleanerStats;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * One pass of Apache Kafka 4.4's own log cleaner ({@link Cleaner}, as its {@code kafka-log-cleaner-thread}
 * runs it, with the broker's defaults: a 128 MiB dedupe buffer, 512 KiB I/O buffers, no throttling) over
 * a compacted partition directory ({@code DIR} named {@code <topic>-<partition>}). Loading the log
 * (Apache rebuilds the missing indexes) is not timed; the pass is.
 *
 * <p>Usage: {@code ApacheCleanerRun DIR SEGMENT_BYTES}. Prints one line:
 * {@code apache-cleaner ms=.. bytesRead=.. bytesWritten=.. messagesRead=.. messagesWritten=..}
 */
public final class ApacheCleanerRun {
    private ApacheCleanerRun() {}

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        Properties props = new Properties();
        props.put("cleanup.policy", "compact");
        props.put("segment.bytes", args[1]);
        props.put("min.compaction.lag.ms", "0");
        KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        UnifiedLog log = UnifiedLog.create(dir, new LogConfig(props), 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM,
                300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), false,
                Optional.empty());
        try {
            log.updateHighWatermark(log.logEndOffset());
            Cleaner cleaner = new Cleaner(0, new SkimpyOffsetMap(128 * 1024 * 1024), 512 * 1024, 1024 * 1024 + 12, 0.9,
                    new Throttler(Double.MAX_VALUE, 300, "cleaner-io", "bytes", Time.SYSTEM), Time.SYSTEM, tp -> { });
            long start = System.nanoTime();
            CleanerStats stats = cleaner.doClean(new LogToClean(log, 0, log.activeSegment().baseOffset(), false),
                    System.currentTimeMillis()).getValue();
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("apache-cleaner ms=%d bytesRead=%d bytesWritten=%d messagesRead=%d messagesWritten=%d%n", ms,
                    stats.bytesRead(), stats.bytesWritten(), stats.messagesRead(), stats.messagesWritten());
        } finally {
            log.close();
            scheduler.shutdown();
        }
    }
}
