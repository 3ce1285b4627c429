package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker's retention timer applies a topic's retention.bytes: old segments go, log start moves. */
class RetentionIT {
    @TempDir
    Path dir;

    @Test
    void oldSegmentsAreRemovedByTheRetentionTimer() throws Exception {
        BrokerConfig config = BrokerConfig.forTest(dir).withRetentionCheckInterval(Duration.ofMillis(200));
        try (TestBroker b = new TestBroker(config);
                Admin admin = b.admin()) {
            // Apache's smallest segment.bytes (1 MiB) and twice that retained; ~6 MiB written.
            admin.createTopics(List.of(new NewTopic("short", 1, (short) 1)
                            .configs(Map.of("segment.bytes", "1048576", "retention.bytes", "2097152"))))
                    .all()
                    .get();
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 100; i++) {
                    p.send(new ProducerRecord<>("short", 0, null, new byte[60_000]))
                            .get();
                }
            }
            Path partition = dir.resolve("short").resolve("0");
            TopicPartition tp = new TopicPartition("short", 0);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                                .all()
                                .get()
                                .get(tp)
                                .offset())
                        .isPositive();
                assertThat(segments(partition)).isLessThanOrEqualTo(4);
            });
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                            .all()
                            .get()
                            .get(tp)
                            .offset())
                    .isEqualTo(100);
        }
    }

    private static long segments(Path partitionDir) throws Exception {
        try (Stream<Path> s = Files.list(partitionDir)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".log")).count();
        }
    }
}
