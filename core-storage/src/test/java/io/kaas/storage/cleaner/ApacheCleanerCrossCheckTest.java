package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.EngineConfig;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same logs (random keys, values, tombstones, idempotent batches, committed and aborted
 * transactions, every codec; {@link CleanerScenario}) cleaned by kaas's {@link LogCleaner} and by
 * Apache Kafka 4.4's own {@link Cleaner} on an Apache {@link UnifiedLog}, at the same clock, twice
 * (the second pass after delete.retention.ms, when tombstones and markers go): the same records,
 * (offset, key, value) and markers by offset, survive each pass.
 */
class ApacheCleanerCrossCheckTest {
    private static final long RETENTION = 1_000;
    private static final long NOW = CleanerScenario.TIMESTAMP + 100_000;
    private static final int SEGMENT_BYTES = 1 << 20; // Apache's smallest

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233})
    void theSameRecordsSurviveAsInApachesCleaner(long seed) throws Exception {
        CleanerScenario s = CleanerScenario.generate(seed, 80, 10);

        Path kaasDir = Files.createDirectories(tmp.resolve("kaas").resolve("t").resolve("0"));
        List<SegmentName> names = s.write(kaasDir);
        LogCleaner first = new LogCleaner(options(NOW));
        first.clean(new CleanableLog(kaasDir, names, 0, s.activeBase(), s.lastBatchOfProducer, -1), false, b -> {});
        List<String> kaasFirst = survivors(CleanedLog.read(kaasDir));

        KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        UnifiedLog apache = apacheLog(tmp.resolve("apache").resolve("t-0"), s, scheduler);
        // The rolls queued asynchronous flushes; let them finish, and let the passes' own background tasks
        // (unlinking replaced files) be skipped rather than race the temp dir's removal.
        scheduler.shutdown();
        try {
            Cleaner cleaner = new Cleaner(
                    0,
                    new SkimpyOffsetMap(1 << 20),
                    64 * 1024,
                    10 << 20,
                    0.9,
                    new Throttler(Double.MAX_VALUE, 300, "cleaner-io", "bytes", Time.SYSTEM),
                    Time.SYSTEM,
                    tp -> {});
            cleaner.doClean(new LogToClean(apache, 0, s.activeBase(), false), NOW);
            assertThat(kaasFirst).as("after the first pass (seed %d)", seed).isEqualTo(survivors(apache));

            new LogCleaner(options(NOW + RETENTION))
                    .clean(
                            new CleanableLog(
                                    kaasDir,
                                    CleanerProperties.segments(kaasDir),
                                    0,
                                    s.activeBase(),
                                    s.lastBatchOfProducer,
                                    0),
                            false,
                            b -> {});
            cleaner.doClean(new LogToClean(apache, 0, s.activeBase(), false), NOW + RETENTION);
            assertThat(survivors(CleanedLog.read(kaasDir)))
                    .as("after the delete horizon (seed %d)", seed)
                    .isEqualTo(survivors(apache));
        } finally {
            apache.close();
        }
    }

    private static CleanerOptions options(long now) {
        return new CleanerOptions(
                now,
                RETENTION,
                0,
                SEGMENT_BYTES,
                1 << 20,
                64 * 1024,
                new IndexPolicy(EngineConfig.DEFAULT_INDEX_INTERVAL_BYTES));
    }

    /** The scenario's segments appended to an Apache log as a follower would (offsets kept), rolled where kaas's are. */
    private static UnifiedLog apacheLog(Path dir, CleanerScenario s, KafkaScheduler scheduler) throws Exception {
        Files.createDirectories(dir);
        Properties props = new Properties();
        props.put("cleanup.policy", "compact");
        props.put("delete.retention.ms", Long.toString(RETENTION));
        props.put("segment.bytes", Integer.toString(SEGMENT_BYTES));
        props.put("min.compaction.lag.ms", "0");
        LogConfig config = new LogConfig(props);
        UnifiedLog log = UnifiedLog.create(
                dir.toFile(),
                config,
                0L,
                0L,
                scheduler,
                new BrokerTopicStats(),
                Time.SYSTEM,
                300_000,
                new ProducerStateManagerConfig(86_400_000, false),
                600_000,
                new LogDirFailureChannel(10),
                true,
                Optional.empty());
        for (int i = 0; i < s.segments.size(); i++) {
            if (i > 0) {
                log.roll(Optional.empty());
            }
            for (ByteBuffer b : s.segments.get(i)) {
                ByteBuffer copy =
                        ByteBuffer.allocate(b.remaining()).put(b.duplicate()).flip();
                copy.putInt(
                        io.kaas.storage.format.RecordBatchHeader.PARTITION_LEADER_EPOCH_OFFSET,
                        0); // a follower's batches carry the leader's epoch
                log.appendAsFollower(MemoryRecords.readableRecords(copy), 0);
            }
        }
        log.updateHighWatermark(log.logEndOffset());
        return log;
    }

    private static List<String> survivors(UnifiedLog log) {
        List<String> out = new ArrayList<>();
        for (LogSegment segment : log.logSegments()) {
            for (RecordBatch b : segment.log().batches()) {
                for (Record r : b) {
                    out.add(
                            b.isControlBatch()
                                    ? r.offset() + " marker"
                                    : r.offset() + " " + str(r.key()) + "=" + str(r.value()));
                }
            }
        }
        return out;
    }

    private static List<String> survivors(CleanedLog log) {
        List<String> out = new ArrayList<>();
        for (CleanedLog.Read r : log.records) {
            out.add(r.control() ? r.offset() + " marker" : r.offset() + " " + r.key() + "=" + r.value());
        }
        return out;
    }

    private static String str(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }
}
