package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.format.CleanerCheckpoint;
import io.kaas.storage.testing.ExternalTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** librdkafka through kcat: metadata, produce, consume and a balanced consumer group. */
class KcatIT {
    @TempDir
    Path dir;

    TestBroker b;

    @BeforeEach
    void start() {
        ExternalTool.KCAT.assumePresent();
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterEach
    void stop() {
        if (b != null) {
            b.close();
        }
    }

    private ExternalProcess kcat(String stdin, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("kcat", "-b", b.bootstrap()));
        cmd.addAll(List.of(args));
        return ExternalProcess.run(dir, stdin, cmd);
    }

    @Test
    void produceConsumeAndMetadata() throws Exception {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            in.append("k").append(i).append(":v").append(i).append('\n');
        }
        ExternalProcess produced =
                kcat(in.toString(), "-P", "-t", "kc", "-K:", "-X", "enable.idempotence=true", "-X", "acks=all");
        assertThat(produced.exitCode()).as(produced.toString()).isZero();

        ExternalProcess consumed = kcat(null, "-C", "-t", "kc", "-o", "beginning", "-e", "-f", "%k=%s\\n");
        assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
        List<String> lines = consumed.out().lines().toList();
        assertThat(lines).hasSize(100).contains("k0=v0", "k99=v99");

        ExternalProcess meta = kcat(null, "-L");
        assertThat(meta.exitCode()).as(meta.toString()).isZero();
        assertThat(meta.out())
                .contains(
                        "1 brokers:",
                        "broker 0 at 127.0.0.1:" + b.broker().boundPort(),
                        "topic \"kc\" with 1 partitions");

        ExternalProcess json = kcat(null, "-L", "-J");
        assertThat(json.out()).contains("\"topic\":\"kc\"");
    }

    /** Batches the cleaner rebuilt (every codec, records removed, offsets kept) are read by librdkafka too. */
    @Test
    void kcatReadsACompactedLog() throws Exception {
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("compacted"))
                .withSegmentBytes(4096)
                .withCleaner(new CleanerSettings(1, 16L << 20, 64 * 1024, Duration.ofMillis(50)));
        Map<String, String> latest = new HashMap<>();
        Map<String, Long> latestOffset = new HashMap<>();
        try (TestBroker c = new TestBroker(config);
                Admin admin = c.admin()) {
            admin.createTopics(
                            List.of(new NewTopic("table", 1, (short) 1).configs(Map.of("cleanup.policy", "compact"))))
                    .all()
                    .get();
            for (String codec : List.of("gzip", "snappy", "lz4", "zstd", "none")) {
                try (KafkaProducer<byte[], byte[]> p = c.producer(Map.of("compression.type", codec))) {
                    for (int i = 0; i < 200; i++) {
                        String key = "k" + (i % 12);
                        String value = codec + "-" + i;
                        long offset = p.send(new ProducerRecord<>(
                                        "table",
                                        0,
                                        key.getBytes(StandardCharsets.UTF_8),
                                        value.getBytes(StandardCharsets.UTF_8)))
                                .get()
                                .offset();
                        latest.put(key, value);
                        latestOffset.put(key, offset);
                    }
                }
            }
            Path partition = dir.resolve("compacted").resolve("table").resolve("0");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Files.exists(partition.resolve(CleanerCheckpoint.FILE_NAME)));
            List<String> cmd = List.of(
                    "kcat", "-b", c.bootstrap(), "-C", "-t", "table", "-o", "beginning", "-e", "-f", "%o %k=%s\\n");
            ExternalProcess consumed = ExternalProcess.run(dir, null, cmd);
            assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
            Map<String, String> lastValue = new HashMap<>();
            Map<String, Long> lastOffset = new HashMap<>();
            long previous = -1;
            for (String line : consumed.out().lines().toList()) {
                long offset = Long.parseLong(line.substring(0, line.indexOf(' ')));
                assertThat(offset).isGreaterThan(previous);
                previous = offset;
                String kv = line.substring(line.indexOf(' ') + 1);
                lastValue.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                lastOffset.put(kv.substring(0, kv.indexOf('=')), offset);
            }
            assertThat(lastValue).isEqualTo(latest);
            assertThat(lastOffset).isEqualTo(latestOffset);
            assertThat(consumed.out().lines().count())
                    .as("records kcat read back of 1000 written")
                    .isLessThan(1000);
        }
    }

    @Test
    void compressedProduceWithEveryCodecConsumesBack() throws Exception {
        for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            ExternalProcess produced = kcat("a\nb\nc\n", "-P", "-t", "z-" + codec, "-z", codec);
            assertThat(produced.exitCode()).as(produced.toString()).isZero();
            ExternalProcess consumed = kcat(null, "-C", "-t", "z-" + codec, "-o", "beginning", "-e");
            assertThat(consumed.out().lines().toList()).as(consumed.toString()).containsExactly("a", "b", "c");
        }
    }

    @Test
    void balancedConsumerGroupConsumesAndCommits() throws Exception {
        kcat("1\n2\n3\n", "-P", "-t", "grp");
        ExternalProcess g =
                kcat(null, "-G", "kcat-group", "-o", "beginning", "-e", "-X", "auto.commit.interval.ms=100", "grp");
        assertThat(g.exitCode()).as(g.toString()).isZero();
        assertThat(g.out().lines().toList()).containsExactly("1", "2", "3");
    }
}
