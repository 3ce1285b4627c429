package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.TopicDefaults;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.server.config.ServerLogConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * message.timestamp.type and the CreateTime bounds (KIP-937) through real kafka-clients: a LogAppendTime
 * topic's batches come back stamped by the broker (type, time, and a CRC the consumer checks), the
 * producer learns the append time from the response; timestamps outside the bounds get INVALID_TIMESTAMP.
 */
class MessageTimestampTest {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() throws Exception {
        b = new TestBroker(dir);
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(
                            new NewTopic("append-time", 1, (short) 1)
                                    .configs(Map.of("message.timestamp.type", "LogAppendTime")),
                            new NewTopic("bounded", 1, (short) 1)
                                    .configs(Map.of(
                                            "message.timestamp.before.max.ms",
                                            "60000",
                                            "message.timestamp.after.max.ms",
                                            "60000")),
                            new NewTopic("defaults", 1, (short) 1)))
                    .all()
                    .get();
        }
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    @Test
    void logAppendTimeTopicsAreStampedByTheBroker() throws Exception {
        long before = System.currentTimeMillis();
        RecordMetadata md;
        try (KafkaProducer<byte[], byte[]> p = b.producer(
                Map.of(ProducerConfig.LINGER_MS_CONFIG, 50, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
            for (int i = 0; i < 9; i++) {
                p.send(new ProducerRecord<>("append-time", 0, 1_000L + i, null, ("v" + i).getBytes()));
            }
            md = p.send(new ProducerRecord<>("append-time", 0, 1_009L, null, "v9".getBytes()))
                    .get();
        }
        long after = System.currentTimeMillis();
        assertThat(md.timestamp())
                .as("the append time from the Produce response")
                .isBetween(before, after);

        List<ConsumerRecord<byte[], byte[]>> records = consumeAll("append-time", 10);
        assertThat(records).hasSize(10).allSatisfy(r -> {
            assertThat(r.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
            assertThat(r.timestamp()).isBetween(before, after);
        });
        assertThat(records.get(9).timestamp()).isEqualTo(md.timestamp());
    }

    @Test
    void createTimeOutsideTheBoundsIsRefused() throws Exception {
        long now = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
            assertThatThrownBy(() -> p.send(
                                    new ProducerRecord<>("bounded", 0, now + 3_600_000L, null, "future".getBytes()))
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidTimestampException.class);
            assertThatThrownBy(
                            () -> p.send(new ProducerRecord<>("bounded", 0, now - 3_600_000L, null, "past".getBytes()))
                                    .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidTimestampException.class);
            assertThat(p.send(new ProducerRecord<>("bounded", 0, now, null, "now".getBytes()))
                            .get()
                            .offset())
                    .isZero();
            // Apache's defaults: any past timestamp, at most an hour ahead.
            assertThat(p.send(new ProducerRecord<>("defaults", 0, 1L, null, "old".getBytes()))
                            .get()
                            .timestamp())
                    .isEqualTo(1L);
            assertThatThrownBy(() -> p.send(
                                    new ProducerRecord<>("defaults", 0, now + 2 * 3_600_000L, null, "ahead".getBytes()))
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidTimestampException.class);
        }
    }

    @Test
    void theEnginesDefaultBoundsAreApaches() {
        assertThat(TopicDefaults.DEFAULT_TIMESTAMP_AFTER_MAX_MS)
                .isEqualTo(ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT);
        assertThat(TopicDefaults.DEFAULT_TIMESTAMP_BEFORE_MAX_MS)
                .isEqualTo(ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT);
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeAll(String topic, int count) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(ConsumerConfig.CHECK_CRCS_CONFIG, true))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
