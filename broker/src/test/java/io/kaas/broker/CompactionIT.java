package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.CleanerSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's cleaner thread compacts a cleanup.policy=compact topic while an idempotent producer keeps
 * writing to it: segments shrink, a consumer reading from the start gets each key's latest value at its
 * original offset, and the producer's sequence state survives the swaps (no OutOfOrderSequence).
 */
class CompactionIT {
    @TempDir
    Path dir;

    @Test
    void theCleanerThreadCompactsWhileAProducerKeepsWriting() throws Exception {
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withCleaner(new CleanerSettings(1, 16L << 20, 64 * 1024, Duration.ofMillis(100)));
        Map<String, String> latest = new HashMap<>();
        Map<String, Long> latestOffset = new HashMap<>();
        try (TestBroker b = new TestBroker(config);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("table", 1, (short) 1)
                            .configs(Map.of(
                                    "cleanup.policy",
                                    "compact",
                                    "segment.bytes",
                                    "1048576",
                                    "min.cleanable.dirty.ratio",
                                    "0.1"))))
                    .all()
                    .get();
            Path partition = dir.resolve("table").resolve("0");
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("enable.idempotence", "true", "acks", "all"))) {
                for (int i = 0; i < 120; i++) {
                    String key = "k" + (i % 10);
                    String value = i + "-" + "x".repeat(40_000);
                    long offset = p.send(new ProducerRecord<>("table", 0, bytes(key), bytes(value)))
                            .get()
                            .offset();
                    latest.put(key, value);
                    latestOffset.put(key, offset);
                }
                long written = 120 * 40_000L; // value bytes produced; the thread may have cleaned some already
                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(logBytes(partition))
                                .as("log bytes after cleaning")
                                .isLessThan(written / 2));
                // the same idempotent producer goes on after its batches were rewritten
                for (int i = 120; i < 130; i++) {
                    String key = "k" + (i % 10);
                    String value = i + "-after";
                    long offset = p.send(new ProducerRecord<>("table", 0, bytes(key), bytes(value)))
                            .get()
                            .offset();
                    latest.put(key, value);
                    latestOffset.put(key, offset);
                }
            }
            Map<String, String> seen = new HashMap<>();
            Map<String, Long> seenOffset = new HashMap<>();
            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("isolation.level", "read_committed"))) {
                TopicPartition tp = new TopicPartition("table", 0);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                long previous = -1;
                while (c.position(tp) < 130) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                        assertThat(r.offset()).isGreaterThan(previous);
                        previous = r.offset();
                        seen.put(str(r.key()), str(r.value()));
                        seenOffset.put(str(r.key()), r.offset());
                    }
                }
            }
            assertThat(seen).isEqualTo(latest);
            assertThat(seenOffset).isEqualTo(latestOffset);
        }
    }

    private static long logBytes(Path partitionDir) throws Exception {
        try (Stream<Path> s = Files.list(partitionDir)) {
            long total = 0;
            for (Path f :
                    s.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                total += Files.size(f);
            }
            return total;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
