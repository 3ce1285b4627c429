package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unmodified Kafka Streams app (word count, at_least_once) on kaas. Its topology has a
 * repartition topic (the group-by re-keys) and a RocksDB state store with a compacted changelog, so it
 * exercises what Streams asks of a broker: internal-topic creation and validation (DescribeConfigs),
 * consumer groups, the restore consumer, purging the repartition topic (DeleteRecords). The counts must
 * be right, then right again after the app restarts with an empty state directory (the store restored
 * from its changelog) and after the broker restarts.
 */
class KafkaStreamsIT {
    private static final String APP = "wordcount";
    private static final String INPUT = "text-lines";
    private static final String OUTPUT = "word-counts";
    private static final String STORE = "counts";

    @TempDir
    Path dir;

    @Test
    void wordCountSurvivesAppAndBrokerRestarts() throws Exception {
        Map<String, Long> expected = new HashMap<>();
        try (TestBroker b = new TestBroker(dir.resolve("data"))) {
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(new NewTopic(INPUT, 2, (short) 1), new NewTopic(OUTPUT, 2, (short) 1)))
                        .all()
                        .get();
            }
            try (KafkaStreams app = start(b, dir.resolve("state-1"))) {
                produce(b, expected, "the quick brown fox", "jumps over the lazy dog", "the dog barks");
                awaitCounts(b, expected);
                assertInternalTopics(b);
                // The default store is RocksDB, whose JNI library loads from its jar on Linux x86-64.
                try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir.resolve("state-1"))) {
                    assertThat(files.map(Path::toString)).anyMatch(f -> f.endsWith("rocksdb/" + STORE));
                }
            }

            // A new instance with an empty state directory: the store comes back from its changelog.
            try (KafkaStreams app = start(b, dir.resolve("state-2"))) {
                produce(b, expected, "the fox again", "a lazy afternoon");
                awaitCounts(b, expected);
            }

            b.restart();
            try (KafkaStreams app = start(b, dir.resolve("state-3"))) {
                produce(b, expected, "the end of the dog story");
                awaitCounts(b, expected);
                assertThat(storeValue(app, "the")).isEqualTo(expected.get("the"));
            }
        }
    }

    private static KafkaStreams start(TestBroker b, Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase().split("\\s+")))
                .groupBy((key, word) -> word, Grouped.with("by-word", Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));

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
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        streams.setUncaughtExceptionHandler(e -> {
            failure.set(e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .SHUTDOWN_CLIENT;
        });
        streams.start();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(failure.get()).as("stream thread failure").isNull();
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
        });
        return streams;
    }

    private static void produce(TestBroker b, Map<String, Long> expected, String... lines) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                b.bootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class))) {
            int i = 0;
            for (String line : lines) {
                producer.send(new ProducerRecord<>(INPUT, "line-" + i++, line));
                for (String w : line.toLowerCase().split("\\s+")) {
                    expected.merge(w, 1L, Long::sum);
                }
            }
            producer.flush();
        }
    }

    /** The latest count the app emitted for each word equals the expected count. */
    private static void awaitCounts(TestBroker b, Map<String, Long> expected) {
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                b.bootstrap(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                LongDeserializer.class))) {
            c.assign(List.of(
                    new org.apache.kafka.common.TopicPartition(OUTPUT, 0),
                    new org.apache.kafka.common.TopicPartition(OUTPUT, 1)));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(100))) {
                    latest.put(r.key(), r.value());
                }
                assertThat(latest).isEqualTo(expected);
            });
        }
    }

    private static void assertInternalTopics(TestBroker b) throws Exception {
        String repartition = APP + "-by-word-repartition";
        String changelog = APP + "-" + STORE + "-changelog";
        try (Admin admin = b.admin()) {
            assertThat(admin.listTopics().names().get()).contains(repartition, changelog);
            Map<String, TopicDescription> topics = admin.describeTopics(List.of(repartition, changelog))
                    .allTopicNames()
                    .get();
            assertThat(topics.get(changelog).partitions()).hasSize(2);
            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
            assertThat(admin.describeConfigs(Set.of(res))
                            .all()
                            .get()
                            .get(res)
                            .get(TopicConfig.CLEANUP_POLICY_CONFIG)
                            .value())
                    .isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        }
    }

    private static Long storeValue(KafkaStreams app, String word) {
        return app.store(org.apache.kafka.streams.StoreQueryParameters.fromNameAndType(
                        STORE, org.apache.kafka.streams.state.QueryableStoreTypes.<String, Long>keyValueStore()))
                .get(word);
    }
}
