package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified Kafka Streams apps with {@code group.protocol=streams} (KIP-1071) on one shared broker: the broker
 * validates the topology, creates its internal topics and assigns tasks. Two instances share the tasks; when one
 * closes, the other takes them all; when it comes back, tasks move back to it. The output stays right and complete
 * throughout, and under exactly_once_v2 no record is emitted twice.
 */
class StreamsGroupIT {
    @TempDir
    static Path dir;

    private static TestBroker broker;

    @BeforeAll
    static void start() {
        broker = new TestBroker(dir.resolve("data"));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void wordCountInstancesShareTasksAndTakeThemBack() throws Exception {
        String app = "wc-streams";
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("wc-in", 4, (short) 1), new NewTopic("wc-out", 4, (short) 1)))
                    .all()
                    .get();
        }
        Map<String, Long> expected = new HashMap<>();
        KafkaStreams a = start(wordCount(), app, StreamsConfig.AT_LEAST_ONCE, dir.resolve("wc-a"));
        KafkaStreams b = start(wordCount(), app, StreamsConfig.AT_LEAST_ONCE, dir.resolve("wc-b"));
        try (Admin admin = broker.admin()) {
            // Two subtopologies (split, count) of four tasks each, spread over both instances.
            awaitMembers(admin, app, 2, 8);
            assertTopologyDescriptionIsTheApplications(admin, app, wordCount().describe());
            produce("wc-in", expected, "the quick brown fox", "jumps over the lazy dog", "the dog barks");
            awaitCounts("wc-out", 4, expected);
            Map<String, TopicDescription> internal = admin.describeTopics(
                            List.of(app + "-by-word-repartition", app + "-counts-changelog"))
                    .allTopicNames()
                    .get();
            assertThat(internal.get(app + "-by-word-repartition").partitions()).hasSize(4);
            assertThat(internal.get(app + "-counts-changelog").partitions()).hasSize(4);
            ConfigResource changelog = new ConfigResource(ConfigResource.Type.TOPIC, app + "-counts-changelog");
            assertThat(admin.describeConfigs(Set.of(changelog))
                            .all()
                            .get()
                            .get(changelog)
                            .get(TopicConfig.CLEANUP_POLICY_CONFIG)
                            .value())
                    .isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);

            // One instance leaves: the other takes every task.
            b.close();
            awaitMembers(admin, app, 1, 8);
            produce("wc-in", expected, "the fox again", "a lazy afternoon");
            awaitCounts("wc-out", 4, expected);

            // It comes back: tasks move back to it.
            b = start(wordCount(), app, StreamsConfig.AT_LEAST_ONCE, dir.resolve("wc-b"));
            awaitMembers(admin, app, 2, 8);
            produce("wc-in", expected, "the end of the dog story");
            awaitCounts("wc-out", 4, expected);

            Map<String, GroupType> types = new HashMap<>();
            for (GroupListing l :
                    admin.listGroups(ListGroupsOptions.forStreamsGroups()).all().get()) {
                types.put(l.groupId(), l.type().orElseThrow());
            }
            assertThat(types).containsEntry(app, GroupType.STREAMS);

            String listed = ExternalProcess.java(
                            dir,
                            null,
                            "org.apache.kafka.tools.streams.StreamsGroupCommand",
                            "--bootstrap-server",
                            broker.bootstrap(),
                            "--list")
                    .out();
            assertThat(listed).contains(app);
            String described = ExternalProcess.java(
                            dir,
                            null,
                            "org.apache.kafka.tools.streams.StreamsGroupCommand",
                            "--bootstrap-server",
                            broker.bootstrap(),
                            "--describe",
                            "--group",
                            app,
                            "--members")
                    .out();
            // One line per member, each with active tasks of both subtopologies.
            assertThat(described.lines().filter(l -> l.startsWith(app) && l.contains("ACTIVE: 0:") && l.contains("1:")))
                    .hasSize(2);
            String state = ExternalProcess.java(
                            dir,
                            null,
                            "org.apache.kafka.tools.streams.StreamsGroupCommand",
                            "--bootstrap-server",
                            broker.bootstrap(),
                            "--describe",
                            "--group",
                            app,
                            "--state")
                    .out();
            assertThat(state).contains(app).containsPattern("(?i)stable");
        } finally {
            b.close();
            a.close();
        }
    }

    @Test
    void streamTableJoinUnderExactlyOnceEmitsEachOrderOnce() throws Exception {
        String app = "join-streams";
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(
                            new NewTopic("customers", 2, (short) 1),
                            new NewTopic("orders", 2, (short) 1),
                            new NewTopic("enriched", 2, (short) 1)))
                    .all()
                    .get();
        }
        Map<String, String> customers = new HashMap<>();
        for (int c = 0; c < 10; c++) {
            customers.put("c" + c, "name-" + c);
        }
        send("customers", customers);
        Map<String, String> expected = new HashMap<>();
        KafkaStreams a = start(join(), app, StreamsConfig.EXACTLY_ONCE_V2, dir.resolve("join-a"));
        KafkaStreams b = start(join(), app, StreamsConfig.EXACTLY_ONCE_V2, dir.resolve("join-b"));
        try (Admin admin = broker.admin();
                KafkaConsumer<String, String> out = readCommitted("enriched", 2)) {
            awaitMembers(admin, app, 2, 2);
            List<ConsumerRecord<String, String>> seen = new ArrayList<>();
            sendOrders(0, 20, expected);
            awaitJoined(out, seen, expected);

            b.close();
            awaitMembers(admin, app, 1, 2);
            sendOrders(20, 40, expected);
            awaitJoined(out, seen, expected);

            b = start(join(), app, StreamsConfig.EXACTLY_ONCE_V2, dir.resolve("join-b"));
            awaitMembers(admin, app, 2, 2);
            sendOrders(40, 60, expected);
            awaitJoined(out, seen, expected);
            assertThat(seen).hasSize(60); // no order emitted twice
        } finally {
            b.close();
            a.close();
        }
    }

    private static Topology wordCount() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("wc-in", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase().split("\\s+")))
                .groupBy((key, word) -> word, Grouped.with("by-word", Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to("wc-out", Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** Orders (keyed by customer) joined with the customers table: "order-N:name-C". */
    private static Topology join() {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> names = builder.table("customers", Consumed.with(Serdes.String(), Serdes.String()));
        builder.stream("orders", Consumed.with(Serdes.String(), Serdes.String()))
                .join(names, (order, name) -> order + ":" + name)
                .to("enriched", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private static KafkaStreams start(Topology topology, String app, String guarantee, Path stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.STREAMS.name().toLowerCase());
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        KafkaStreams streams = new KafkaStreams(topology, p);
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

    /**
     * A member was asked for its topology description (heartbeat's TopologyDescriptionRequired) and pushed it
     * (StreamsGroupTopologyDescriptionUpdate): describeStreamsGroups with includeTopologyDescription shows the
     * application's own subtopologies and node names, which a plain describe leaves NOT_REQUESTED.
     */
    private static void assertTopologyDescriptionIsTheApplications(
            Admin admin, String app, org.apache.kafka.streams.TopologyDescription own) throws Exception {
        Map<String, Set<String>> expected = new HashMap<>();
        own.subtopologies()
                .forEach(st -> expected.put(
                        String.valueOf(st.id()),
                        st.nodes().stream()
                                .map(org.apache.kafka.streams.TopologyDescription.Node::name)
                                .collect(java.util.stream.Collectors.toSet())));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            StreamsGroupDescription d = admin.describeStreamsGroups(
                            List.of(app),
                            new org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions()
                                    .includeTopologyDescription(true))
                    .describedGroups()
                    .get(app)
                    .get();
            assertThat(d.topologyDescriptionStatus())
                    .isEqualTo(org.apache.kafka.clients.admin.StreamsGroupTopologyDescriptionStatus.AVAILABLE);
            Map<String, Set<String>> described = new HashMap<>();
            d.topologyDescription()
                    .orElseThrow()
                    .subtopologies()
                    .forEach(st -> described.put(
                            st.id(),
                            st.nodes().stream()
                                    .map(org.apache.kafka.clients.admin.StreamsGroupTopologyDescription.Node::name)
                                    .collect(java.util.stream.Collectors.toSet())));
            assertThat(described).isEqualTo(expected);
        });
        assertThat(admin.describeStreamsGroups(List.of(app))
                        .describedGroups()
                        .get(app)
                        .get()
                        .topologyDescriptionStatus())
                .isEqualTo(org.apache.kafka.clients.admin.StreamsGroupTopologyDescriptionStatus.NOT_REQUESTED);
    }

    /** The group is stable with {@code members} members, each owning some of the {@code tasks} active tasks. */
    private static void awaitMembers(Admin admin, String app, int members, int tasks) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            StreamsGroupDescription d = admin.describeStreamsGroups(List.of(app))
                    .describedGroups()
                    .get(app)
                    .get();
            assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(d.members()).hasSize(members);
            int total = 0;
            for (StreamsGroupMemberDescription m : d.members()) {
                int owned = m.assignment().activeTasks().stream()
                        .mapToInt(t -> t.partitions().size())
                        .sum();
                assertThat(owned).as("active tasks of " + m.memberId()).isPositive();
                total += owned;
            }
            assertThat(total).isEqualTo(tasks);
            assertThat(d.subtopologies()).isNotEmpty();
        });
    }

    private static void produce(String topic, Map<String, Long> expected, String... lines) {
        try (KafkaProducer<String, String> producer = producer()) {
            int i = 0;
            for (String line : lines) {
                producer.send(new ProducerRecord<>(topic, "line-" + i++, line));
                for (String w : line.toLowerCase().split("\\s+")) {
                    expected.merge(w, 1L, Long::sum);
                }
            }
            producer.flush();
        }
    }

    private static void send(String topic, Map<String, String> records) {
        try (KafkaProducer<String, String> producer = producer()) {
            records.forEach((k, v) -> producer.send(new ProducerRecord<>(topic, k, v)));
            producer.flush();
        }
    }

    private static void sendOrders(int from, int to, Map<String, String> expected) {
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = from; i < to; i++) {
                String customer = "c" + (i % 10);
                producer.send(new ProducerRecord<>("orders", customer, "order-" + i));
                expected.put("order-" + i, "order-" + i + ":name-" + (i % 10));
            }
            producer.flush();
        }
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class));
    }

    private static KafkaConsumer<String, String> readCommitted(String topic, int partitions) {
        KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrap(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class));
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        c.assign(tps);
        return c;
    }

    /** Every expected order has been emitted, joined with its customer's name. */
    private static void awaitJoined(
            KafkaConsumer<String, String> out,
            List<ConsumerRecord<String, String>> seen,
            Map<String, String> expected) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            out.poll(Duration.ofMillis(100)).forEach(seen::add);
            Map<String, String> joined = new HashMap<>();
            seen.forEach(r -> joined.put(r.value().substring(0, r.value().indexOf(':')), r.value()));
            assertThat(joined).isEqualTo(expected);
        });
    }

    /** The latest count emitted for each word equals the expected count. */
    private static void awaitCounts(String topic, int partitions, Map<String, Long> expected) {
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                LongDeserializer.class))) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(100))) {
                    latest.put(r.key(), r.value());
                }
                assertThat(latest).isEqualTo(expected);
            });
        }
    }
}
