package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kaas verify} beside a running engine: it checks the prefix that was there when it started, and an
 * append in progress (a batch half in the file, an index entry for bytes past what it read, a segment
 * rolled meanwhile) is never damage. The engine appends on its own thread while verify runs again and again.
 */
class VerifyLiveCommandTest {
    @TempDir
    Path data;

    @Test
    void aHalfWrittenBatchAndItsIndexEntryAreAnAppendInProgressWhileABrokerHoldsThePartitionAndATornTailWhenNot()
            throws Exception {
        Path p0 = LogFixture.partition(data, "t", 0, 2, 20);
        Path active = p0.resolve(SegmentName.of(1, 100).logFileName());
        Path activeIndex = p0.resolve(SegmentName.of(1, 100).indexFileName());
        long end = Files.size(active);
        ByteBuffer next = LogFixture.batch(200, Compression.NONE, 50);
        byte[] half = new byte[next.remaining() / 2];
        next.get(half);
        LogFixture.append(active, half); // the writer's bytes so far
        LogFixture.append(
                activeIndex,
                ByteBuffer.allocate(12)
                        .putInt(100)
                        .putInt((int) end)
                        .putInt(0)
                        .array()); // its entry, and half the next

        try (OwnerLock engine = OwnerLock.acquireDataDir(data)) {
            CliRun live = CliRun.run(new VerifyCommand(), "--no-progress", data.toString());
            assertThat(live.exit()).as(live.toString()).isZero();
        }
        CliRun offline = CliRun.run(new VerifyCommand(), "--no-progress", data.toString());
        assertThat(offline.exit()).as(offline.toString()).isEqualTo(1);
        assertThat(offline.out())
                .contains(active + ":" + end + ": " + half.length + " invalid bytes at the end")
                .contains(activeIndex + ":");
    }

    @Test
    void verifyNeverReportsDamageThatIsOnlyAnAppendInProgress() throws Exception {
        EngineConfig config =
                EngineConfig.defaults(data).withSegmentBytes(16 * 1024).withIndexIntervalBytes(512);
        try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
            engine.createTopic("live", 1, TopicConfig.EMPTY);
            PartitionLog log = engine.partition(new TopicPartition("live", 0));
            log.append(LogFixture.batch(0, Compression.NONE, 10), Acks.ALL, 0).get(10, TimeUnit.SECONDS);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong appended = new AtomicLong();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread appender = new Thread(
                    () -> {
                        try {
                            for (int i = 0; !stop.get(); i++) {
                                Compression codec = LogFixture.CODECS.get(i % LogFixture.CODECS.size());
                                // acks=1 and acks=all mixed: bytes land in the file before and without an fsync
                                log.append(
                                                LogFixture.batch(0, codec, 1 + i % 40),
                                                i % 3 == 0 ? Acks.ALL : Acks.LEADER,
                                                0)
                                        .get(10, TimeUnit.SECONDS);
                                appended.incrementAndGet();
                            }
                        } catch (Throwable t) {
                            failed.set(t);
                        }
                    },
                    "test-appender");
            appender.start();
            List<String> runs = new ArrayList<>();
            try {
                for (int run = 0; run < 40 && failed.get() == null; run++) {
                    long before = appended.get();
                    CliRun r = CliRun.run(new VerifyCommand(), "--no-progress", data.toString());
                    assertThat(r.exit())
                            .as("run " + run + " while appending: " + r)
                            .isNotEqualTo(1);
                    assertThat(r.exit()).as("run " + run + ": " + r).isZero();
                    runs.add(before + ".." + appended.get());
                    long seen = appended.get();
                    // the next run starts only after the engine moved on, so each one meets new bytes
                    while (appended.get() == seen && failed.get() == null && appender.isAlive()) {
                        Thread.onSpinWait();
                    }
                }
            } finally {
                stop.set(true);
                appender.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(failed.get()).isNull();
            assertThat(appended.get())
                    .as("the engine appended throughout: " + runs)
                    .isGreaterThan(40);
        }
        CliRun after = CliRun.run(new VerifyCommand(), "--no-progress", data.toString());
        assertThat(after.exit()).as(after.toString()).isZero();
    }
}
