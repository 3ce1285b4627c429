package io.kaas.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.KaasBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin listener while the disk misbehaves, on the fault-injecting filesystem: a partition whose
 * fsync hangs never slows a scrape or a probe (gauges read lock-free snapshots), and readiness flips
 * 503 → 200 across the recovery of a partition whose big active segment has no checkpoint. The
 * recovery is held at its first fsync by a gate, so the test sees the 503 for certain and awaits the
 * 200 after releasing it: no sleeps, no timing luck.
 */
class ScrapeUnderFaultsIT {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = InetSocketAddress.createUnresolved("127.0.0.1", 0);
    /** Long enough for the scrapes to happen while the fsync hangs; short enough to see the stall in a second. */
    private static final Duration FSYNC_TIMEOUT = Duration.ofMillis(1_000);

    private FaultyFileSystem fs;
    private Path data;
    private KaasBroker broker;
    private FsyncGate gate;

    @BeforeEach
    void filesystem() throws Exception {
        fs = FaultyFileSystem.onJimfs();
        data = Files.createDirectory(fs.root().resolve("data"));
        AtomicFile.fsyncDirectory(fs.root());
    }

    @AfterEach
    void stop() throws Exception {
        if (gate != null) {
            gate.release();
        }
        if (broker != null) {
            broker.stop();
        }
        fs.close();
    }

    private KaasBroker startBroker() {
        BrokerMetrics metrics = new BrokerMetrics(true);
        Path dataDir = fs.pathOf(data);
        DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(dataDir).withFsyncTimeout(FSYNC_TIMEOUT), metrics.engine());
        return new KaasBroker(
                        BrokerConfig.forTest(dataDir)
                                .withRetentionCheckInterval(Duration.ZERO)
                                .withAdminListener(ANY_LOOPBACK_PORT),
                        engine,
                        metrics)
                .start();
    }

    @Test
    void aHungFsyncNeverStallsAScrapeOrAProbe() throws Exception {
        broker = startBroker();
        broker.engine().createTopic("hang", 1, TopicConfig.EMPTY);
        broker.engine().createTopic("fine", 1, TopicConfig.EMPTY);
        AdminHttp http = new AdminHttp(broker.adminAddress());
        await().atMost(Duration.ofSeconds(30)).until(() -> http.get("/readyz").status() == 200);
        for (int i = 0; i < 3; i++) {
            http.scrape(); // warm the handler up: the timing below is of a scrape, not of class loading
        }

        gate = fs.faults().hangFsync(Scope.under(data.resolve("hang/0")));
        CompletableFuture<?> hung = broker.engine()
                .partition(new TopicPartition("hang", 0))
                .append(TestBatches.batch(3, System.currentTimeMillis()), Acks.ALL, -1);
        gate.awaitBlocked(1, Duration.ofSeconds(10));

        long[] millis = new long[3];
        for (int i = 0; i < millis.length; i++) {
            AdminHttp.Response r = http.get("/metrics");
            assertThat(r.status()).isEqualTo(200);
            PrometheusText m = PrometheusText.parse(r.body());
            assertThat(m.value("kaas_partition_high_watermark", "topic", "hang", "partition", "0"))
                    .contains(3.0);
            millis[i] = r.millis();
        }
        assertThat(gate.blockedCount()).as("still hung while we scraped").isEqualTo(1);
        Arrays.sort(millis);
        System.out.printf("scrapes while an fsync hangs: %s ms%n", Arrays.toString(millis));
        assertThat(millis[1]).as("median scrape while an fsync hangs, ms").isLessThan(100);
        assertThat(http.get("/healthz").millis()).isLessThan(1_000);

        // The watchdog marks it stalled: the broker is no longer ready, and says why.
        await().atMost(Duration.ofSeconds(30)).until(() -> http.get("/readyz").status() == 503);
        assertThat(hung).isCompletedExceptionally();
        AdminHttp.Response ready = http.get("/readyz");
        assertThat(ready.body()).contains("hang-0: stalled").doesNotContain("fine-0");
        PrometheusText m = http.scrape();
        assertThat(m.value("kaas_partitions", "state", "stalled")).contains(1.0);
        assertThat(m.value("kaas_storage_errors_total", "kind", "STALLED")).contains(1.0);
        assertThat(gate.blockedCount()).isEqualTo(1);
    }

    @Test
    void readinessFlipsOnceABigUncheckpointedPartitionIsRecovered() throws Exception {
        long written = writeBigPartitionWithoutCheckpoint();
        gate = fs.faults().hangFsync(Scope.under(data.resolve("big/0")));
        broker = startBroker();
        AdminHttp http = new AdminHttp(broker.adminAddress());

        gate.awaitBlocked(1, Duration.ofSeconds(30)); // recovery scanned the segment and is writing its state
        assertThat(http.get("/healthz").status()).isEqualTo(200);
        AdminHttp.Response recovering = http.get("/readyz");
        assertThat(recovering.status()).isEqualTo(503);
        assertThat(recovering.body()).contains("recovering partitions: 0 of 1 done");

        gate.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> http.get("/readyz").status() == 200);
        PrometheusText m = http.scrape();
        assertThat(m.value("kaas_recovery_scanned_bytes_total"))
                .get()
                .satisfies(scanned -> assertThat(scanned)
                        .as("the whole active segment was scanned")
                        .isGreaterThanOrEqualTo(written));
        assertThat(m.value("kaas_partition_opens_total")).contains(1.0);
        assertThat(m.value("kaas_partition_high_watermark", "topic", "big", "partition", "0"))
                .contains(200.0);
    }

    /** 200 batches of 10 KB in one active segment (about 2 MB), closed cleanly, then its checkpoint removed: a full scan at open. */
    private long writeBigPartitionWithoutCheckpoint() throws Exception {
        Path dataDir = fs.pathOf(data);
        try (DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(dataDir))) {
            engine.createTopic("big", 1, TopicConfig.EMPTY);
            var log = engine.partition(new TopicPartition("big", 0));
            for (int i = 0; i < 200; i++) {
                log.append(TestBatches.sized(10_000), Acks.LEADER, -1).join();
            }
        }
        Path partition = fs.pathOf(data).resolve("big").resolve("0");
        Files.delete(partition.resolve(RecoveryCheckpoint.FILE_NAME));
        try (var files = Files.list(partition)) {
            return files.filter(f -> f.toString().endsWith(".log"))
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .sum();
        }
    }
}
