package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.CleanerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams count over a few keys updated thousands of times: its changelog (cleanup.policy=compact,
 * created by Streams) is compacted by the broker's cleaner while the app runs, and a new instance with an
 * empty state directory restores every count from the compacted changelog, reading far fewer records
 * than were written to it.
 */
class CompactedChangelogRestoreIT {
    private static final String APP = "counter";
    private static final String INPUT = "events";
    private static final String STORE = "totals";
    private static final String CHANGELOG = APP + "-" + STORE + "-changelog";

    @TempDir
    Path dir;

    @Test
    void aNewInstanceRestoresItsStoreFromTheCompactedChangelog() throws Exception {
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("data"))
                .withSegmentBytes(16 * 1024)
                .withCleaner(new CleanerSettings(1, 16L << 20, 64 * 1024, Duration.ofMillis(100)));
        Map<String, Long> expected = new HashMap<>();
        try (TestBroker b = new TestBroker(config)) {
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(new NewTopic(INPUT, 1, (short) 1)))
                        .all()
                        .get();
            }
            int updates = 3_000;
            try (KafkaStreams app = start(b, dir.resolve("state-1"))) {
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        b.bootstrap(),
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                        StringSerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        StringSerializer.class))) {
                    for (int i = 0; i < updates; i++) {
                        String key = "key-" + (i % 7);
                        producer.send(new ProducerRecord<>(INPUT, key, "e" + i));
                        expected.merge(key, 1L, Long::sum);
                    }
                }
                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(storeContents(app)).isEqualTo(expected));
                // the cleaner has compacted the changelog: far fewer records than updates are left in it
                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(changelogRecords(b)).isLessThan(updates / 3));
            }
            try (KafkaStreams restored = start(b, dir.resolve("state-2"))) {
                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(storeContents(restored)).isEqualTo(expected));
            }
        }
    }

    private static KafkaStreams start(TestBroker b, Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap());
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
        // the changelog's own configs: a compacted topic the cleaner may clean as soon as a segment closes
        p.put(StreamsConfig.topicPrefix("min.cleanable.dirty.ratio"), "0.01");
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        streams.setUncaughtExceptionHandler(e -> {
            failure.set(e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .SHUTDOWN_CLIENT;
        });
        streams.start();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(failure.get()).as("stream thread failure").isNull();
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
        });
        return streams;
    }

    private static Map<String, Long> storeContents(KafkaStreams app) {
        Map<String, Long> out = new HashMap<>();
        try (var it = app.store(
                        StoreQueryParameters.fromNameAndType(STORE, QueryableStoreTypes.<String, Long>keyValueStore()))
                .all()) {
            it.forEachRemaining(kv -> out.put(kv.key, kv.value));
        }
        return out;
    }

    /** Records left in the changelog (read from its start to its end). */
    private static long changelogRecords(TestBroker b) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                b.bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class))) {
            TopicPartition tp = new TopicPartition(CHANGELOG, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long n = 0;
            while (c.position(tp) < end) {
                n += c.poll(Duration.ofMillis(200)).count();
            }
            return n;
        }
    }
}
