package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.DiskStorageEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many partitions at a size CI affords: 2,000 partitions (200 topics × 10) under a budget of 256 open
 * segment files, through a real broker and kafka-clients. Every partition acknowledges an acks=all
 * record, a consumer reads them all back, the broker restarts cleanly and it all happens again; the
 * process's open descriptors ({@code /proc/self/fd}), sampled throughout, never pass the budget plus a
 * fixed slack over what the JVM held before the broker started.
 */
class ManyPartitionsIT {
    private static final int TOPICS = 200;
    private static final int PER_TOPIC = 10;
    private static final int PARTITIONS = TOPICS * PER_TOPIC;
    private static final int MAX_OPEN_FILES = 256;
    /** Sockets, selectors and pipes of the broker and the three clients, the data dir's lock, loads in progress. */
    private static final int SLACK = 128;

    @TempDir
    Path dir;

    @Test
    void twoThousandPartitionsStayWithinTheFileBudgetAcrossARestart() throws Exception {
        long baseline = openFds();
        FdSampler fds = new FdSampler();
        fds.start();
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withRetentionCheckInterval(Duration.ZERO)
                .withMaxOpenFiles(MAX_OPEN_FILES)
                .withAutoCreateTopics(false);
        try (TestBroker broker = new TestBroker(config)) {
            try (Admin admin = broker.admin()) {
                // In requests of 20 topics: one CreateTopics of all 2,000 partitions can outlast the admin
                // client's request timeout on a loaded machine, and the client's retry then meets the topics
                // the first attempt created (TopicExistsException).
                for (int first = 0; first < TOPICS; first += 20) {
                    List<NewTopic> topics = new ArrayList<>();
                    for (int t = first; t < first + 20; t++) {
                        topics.add(new NewTopic(topic(t), PER_TOPIC, (short) 1));
                    }
                    admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
                }
            }
            produceOneEach(broker, "first");
            assertThat(consumeAll(broker)).isEqualTo(PARTITIONS);

            broker.restart();
            DiskStorageEngine engine = (DiskStorageEngine) broker.broker().engine();
            engine.whenReady().get(30, TimeUnit.SECONDS);
            assertThat(engine.loadProgress().loaded()).isEqualTo(PARTITIONS);
            assertThat(engine.files().openChannels())
                    .as("loaded partitions hold no file")
                    .isZero();
            long scanned = 0;
            for (int t = 0; t < TOPICS; t++) {
                for (int p = 0; p < PER_TOPIC; p++) {
                    scanned += engine.openPartition(new io.kaas.storage.TopicPartition(topic(t), p))
                            .openReport()
                            .bytesScanned();
                }
            }
            assertThat(scanned)
                    .as("after a clean close no partition reads a log byte to reopen")
                    .isZero();

            produceOneEach(broker, "second");
            assertThat(consumeAll(broker)).isEqualTo(2 * PARTITIONS);
            assertThat(engine.files().openChannels()).isLessThanOrEqualTo(MAX_OPEN_FILES);
        } finally {
            fds.stop();
        }
        System.out.printf(
                "ManyPartitionsIT: %d partitions, budget %d: open descriptors baseline %d, max %d%n",
                PARTITIONS, MAX_OPEN_FILES, baseline, fds.max());
        assertThat(fds.max())
                .as("open descriptors (baseline %d)", baseline)
                .isLessThanOrEqualTo(baseline + MAX_OPEN_FILES + SLACK);
    }

    private static String topic(int t) {
        return "scale-" + t;
    }

    private static void produceOneEach(TestBroker broker, String value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int t = 0; t < TOPICS; t++) {
                for (int p = 0; p < PER_TOPIC; p++) {
                    acks.add(producer.send(new ProducerRecord<>(topic(t), p, null, value.getBytes())));
                }
            }
            for (Future<RecordMetadata> a : acks) {
                a.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static int consumeAll(TestBroker broker) {
        List<TopicPartition> all = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            for (int p = 0; p < PER_TOPIC; p++) {
                all.add(new TopicPartition(topic(t), p));
            }
        }
        int expectedAtLeast = 0;
        int read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                broker.consumer(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000))) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Map<TopicPartition, Long> ends = consumer.endOffsets(all);
            for (long e : ends.values()) {
                expectedAtLeast += (int) e;
            }
            while (read < expectedAtLeast && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                read += records.count();
            }
        }
        return read;
    }

    static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    /** Samples the process's open descriptors every few milliseconds, on a thread it owns and stops. */
    private static final class FdSampler {
        private final AtomicLong max = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::run, "fd-sampler");

        void start() {
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (running.get()) {
                try {
                    max.accumulateAndGet(openFds(), Math::max);
                    Thread.sleep(5);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }

        long max() {
            return max.get();
        }
    }
}
