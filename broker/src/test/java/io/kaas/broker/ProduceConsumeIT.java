package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProduceConsumeIT {
    @TempDir
    Path dir;

    @Test
    void idempotentProducerRoundTripsThroughAssignedConsumer() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("t", 3, (short) 1))).all().get();
            List<RecordMetadata> acks = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 300; i++) {
                    acks.add(p.send(new ProducerRecord<>("t", i % 3, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get());
                }
            }
            assertThat(acks)
                    .extracting(RecordMetadata::offset)
                    .filteredOn(o -> o == 99L)
                    .hasSize(3);
            List<String> seen = consumeAll(b, "t", 3, 300);
            assertThat(seen).hasSize(300).doesNotHaveDuplicates();
        }
    }

    @Test
    void inMemoryModeServesTheSameProtocolAndWritesNothingToDisk() throws Exception {
        Path unused = dir.resolve("never-created");
        try (TestBroker b = new TestBroker(BrokerConfig.forTest(unused).withInMemory(true))) {
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 50; i++) {
                    p.send(new ProducerRecord<>("mem", ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                p.flush();
            }
            assertThat(consumeAll(b, "mem", 1, 50)).hasSize(50);
            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("group.id", "mem-group"))) {
                c.assign(List.of(new TopicPartition("mem", 0)));
                c.commitSync(Map.of(
                        new TopicPartition("mem", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(7)));
                assertThat(c.committed(java.util.Set.of(new TopicPartition("mem", 0)))
                                .get(new TopicPartition("mem", 0))
                                .offset())
                        .isEqualTo(7);
            }
        }
        assertThat(unused).doesNotExist();
    }

    /** Idempotent acks=all, 3 partitions, 100k records, every codec; consumed back value for value. */
    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void hundredThousandRecordsRoundTripWithEveryCodec(String codec) throws Exception {
        int n = 100_000;
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("c", 3, (short) 1))).all().get();
            try (KafkaProducer<byte[], byte[]> p = b.producer(
                    Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 5))) {
                for (int i = 0; i < n; i++) {
                    p.send(new ProducerRecord<>("c", i % 3, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                p.flush();
            }
            List<String> seen = consumeAll(b, "c", 3, n);
            assertThat(seen).hasSize(n).doesNotHaveDuplicates();
            assertThat(new java.util.HashSet<>(seen)).contains("v0", "v" + (n - 1));
        }
    }

    static List<String> consumeAll(TestBroker b, String topic, int partitions, int expected) {
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            long deadline = System.currentTimeMillis() + 30_000;
            while (seen.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    seen.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return seen;
    }
}
