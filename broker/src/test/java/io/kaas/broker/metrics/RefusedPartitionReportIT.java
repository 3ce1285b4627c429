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
import io.kaas.storage.format.TopicConfig;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition the broker refuses at start (a batch length damaged in bytes the clean close made durable):
 * {@code /readyz} answers 503 and {@code /metrics} has {@code kaas_partition_refused}, both naming the damaged
 * file and byte ({@code FILE:BYTE: what}), as the log does; the undamaged partition beside it is served.
 */
class RefusedPartitionReportIT {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = InetSocketAddress.createUnresolved("127.0.0.1", 0);
    private static final int BATCHES = 20;

    @TempDir
    Path data;

    private KaasBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.stop();
        }
    }

    @Test
    void readinessAndMetricsNameTheFileAndByteOfARefusedPartition() throws Exception {
        long at;
        try (DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(data))) {
            engine.createTopic("hurt", 1, TopicConfig.EMPTY);
            engine.createTopic("fine", 1, TopicConfig.EMPTY);
            for (String topic : List.of("hurt", "fine")) {
                var log = engine.partition(new TopicPartition(topic, 0));
                for (int i = 0; i < BATCHES; i++) {
                    log.append(TestBatches.batch(2, 1_000L + i), Acks.ALL, -1).join();
                }
            }
            at = 5L * TestBatches.batch(2, 1_000L).limit();
        }
        Path log;
        try (var files = Files.list(data.resolve("hurt").resolve("0"))) {
            log = files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).putInt(0, 10), at + 8); // the 6th batch's length: too small
        }
        String named = log.toAbsolutePath() + ":" + at + ": ";

        BrokerMetrics metrics = new BrokerMetrics(true);
        broker = new KaasBroker(
                        BrokerConfig.forTest(data)
                                .withRetentionCheckInterval(Duration.ZERO)
                                .withAdminListener(ANY_LOOPBACK_PORT),
                        new DiskStorageEngine(EngineConfig.defaults(data), metrics.engine()),
                        metrics)
                .start();
        AdminHttp http = new AdminHttp(broker.adminAddress());
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.engine().ready());

        AdminHttp.Response ready = http.get("/readyz");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.body()).contains("hurt-0: cannot be opened: " + named).doesNotContain("fine-0");

        PrometheusText m = http.scrape();
        List<PrometheusText.Sample> refused =
                m.family("kaas_partition_refused").orElseThrow().samples();
        assertThat(refused).singleElement().satisfies(s -> {
            assertThat(s.value()).isEqualTo(1.0);
            assertThat(s.labels()).containsEntry("topic", "hurt").containsEntry("partition", "0");
            assertThat(s.labels().get("damage")).startsWith(named);
        });
        assertThat(m.value("kaas_storage_errors_total", "kind", "DAMAGED")).contains(1.0);
        assertThat(m.value("kaas_partition_high_watermark", "topic", "fine", "partition", "0"))
                .contains(2.0 * BATCHES);
    }
}
