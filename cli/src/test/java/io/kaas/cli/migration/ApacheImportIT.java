package io.kaas.cli.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.cli.KaasRun;
import io.kaas.cluster.Endpoint;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Apache Kafka 4.4 broker writes keyed records over several partitions (several segments each), a committed
 * and an aborted transaction, a compacted topic and a group's commits, and is stopped; {@code kaas import} makes a
 * kaas data dir of its log dir; a kaas broker on it (on Apache's port, so the same idempotent producer carries on)
 * serves the same records at the same offsets, byte for byte, the same topic ids and configs, and the group resumes
 * where it committed. Apache's files are unchanged, and a damaged Apache segment is refused with file and byte.
 * Then the way back: {@code kaas export} of that data dir (after kaas served, took a produce and a group commit),
 * and a second Apache started on the export without formatting serves what kaas served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApacheImportIT {
    private static final List<String> TOPICS = List.of("orders", "compacted", "txn", "open-txn");

    @TempDir
    static Path work;

    private Path logDir;
    private int apachePort;
    private final Map<String, String> topicIds = new TreeMap<>();
    private final Map<TopicPartition, List<String>> uncommitted = new TreeMap<>(ApacheImportIT::compare);
    private final Map<TopicPartition, List<String>> committed = new TreeMap<>(ApacheImportIT::compare);
    private Map<TopicPartition, OffsetAndMetadata> groupOffsets;
    private KafkaProducer<byte[], byte[]> carriedOn;
    private KafkaProducer<byte[], byte[]> openTransaction;
    private RecordMetadata lastBeforeStop;
    private String apacheFilesBefore;
    private ServedState kaasState;

    static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }

    @BeforeAll
    void apacheWritesAndStops() throws Exception {
        logDir = work.resolve("apache-logs");
        try (ApacheKafkaProcess apache = ApacheKafkaProcess.start(work, logDir, true)) {
            apachePort = apache.port();
            try (Admin admin = apache.admin()) {
                admin.createTopics(List.of(
                                new NewTopic("orders", 3, (short) 1)
                                        .configs(Map.of("segment.bytes", "1048576", "retention.ms", "-1")),
                                new NewTopic("compacted", 1, (short) 1).configs(Map.of("cleanup.policy", "compact")),
                                new NewTopic("txn", 1, (short) 1),
                                new NewTopic("open-txn", 1, (short) 1)))
                        .all()
                        .get();
                admin.describeTopics(TOPICS)
                        .allTopicNames()
                        .get()
                        .forEach((name, d) -> topicIds.put(name, d.topicId().toString()));
            }
            carriedOn = producer(apache.bootstrap(), Map.of());
            for (int i = 0; i < 1500; i++) {
                lastBeforeStop = carriedOn
                        .send(new ProducerRecord<>(
                                "orders", i % 3, ("k" + i).getBytes(), ("v" + i + "-".repeat(3000)).getBytes()))
                        .get();
            }
            for (int i = 0; i < 100; i++) {
                carriedOn
                        .send(new ProducerRecord<>("compacted", ("key" + i % 10).getBytes(), ("c" + i).getBytes()))
                        .get();
            }
            try (KafkaProducer<byte[], byte[]> tx =
                    producer(apache.bootstrap(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1"))) {
                tx.initTransactions();
                tx.beginTransaction();
                for (int i = 0; i < 10; i++) {
                    tx.send(new ProducerRecord<>("txn", ("t" + i).getBytes(), "committed".getBytes()));
                }
                tx.commitTransaction();
                tx.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    tx.send(new ProducerRecord<>("txn", ("a" + i).getBytes(), "aborted".getBytes()));
                }
                tx.flush();
                tx.abortTransaction();
            }
            // A transaction left open when Apache stops (its producer is closed only after Apache is gone, so
            // nothing aborts it): the import must refuse it, or end it with ABORT markers when told to.
            openTransaction = producer(
                    apache.bootstrap(),
                    Map.of(
                            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                            "tx-open",
                            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                            (int) Duration.ofMinutes(15).toMillis()));
            openTransaction.initTransactions();
            openTransaction.beginTransaction();
            for (int i = 0; i < 3; i++) {
                openTransaction.send(new ProducerRecord<>("open-txn", ("o" + i).getBytes(), "open".getBytes()));
            }
            openTransaction.flush();
            try (KafkaConsumer<byte[], byte[]> c = consumer(apache.bootstrap(), "g1", "read_uncommitted")) {
                c.subscribe(List.of("orders"));
                int seen = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (seen < 700 && System.nanoTime() < deadline) {
                    seen += c.poll(Duration.ofMillis(200)).count();
                }
                assertThat(seen).isGreaterThanOrEqualTo(700);
                groupOffsets = Map.of(
                        new TopicPartition("orders", 0), new OffsetAndMetadata(123, "m0"),
                        new TopicPartition("orders", 1), new OffsetAndMetadata(250, "m1"),
                        new TopicPartition("orders", 2), new OffsetAndMetadata(7, ""));
                c.commitSync(groupOffsets);
            }
            readAll(apache.bootstrap(), "read_uncommitted", uncommitted);
            readAll(apache.bootstrap(), "read_committed", committed);
        }
        openTransaction.close(Duration.ZERO); // forced: no abort is even attempted
        apacheFilesBefore = describeFiles(logDir);
    }

    @AfterAll
    void closeProducer() {
        if (carriedOn != null) {
            carriedOn.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void importedDataDirServesWhatApacheServed() throws Exception {
        Path data = work.resolve("kaas-data");
        KaasRun refused = KaasRun.of("import", logDir.toString(), "--data-dir", data.toString());
        assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(1);
        assertThat(refused.err())
                .contains("1 transaction(s) open: tx-open")
                .contains("--abort-open-transactions")
                .contains("nothing was written");
        assertThat(data).as("nothing written").doesNotExist();

        KaasRun dry = KaasRun.of(
                "import", logDir.toString(), "--data-dir", data.toString(), "--dry-run", "--abort-open-transactions");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out())
                .contains("would import orders-0")
                .contains("would import group g1: 3 committed offset(s)");
        assertThat(data).doesNotExist();

        KaasRun run = KaasRun.of(
                "import", logDir.toString(), "--data-dir", data.toString(), "--json", "--abort-open-transactions");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("\"transfer\":\"hard links and copies\"").contains("\"type\":\"summary\"");
        assertThat(run.err()).contains("[1/6] compacted-0");
        assertThat(describeFiles(logDir)).as("Apache's files untouched").isEqualTo(apacheFilesBefore);

        BrokerConfig config = BrokerConfig.forTest(data)
                .withRetentionCheckInterval(Duration.ZERO)
                .withListeners(List.of(new Endpoint("PLAINTEXT", "127.0.0.1", apachePort)));
        try (TestBroker kaas = new TestBroker(config)) {
            Map<TopicPartition, List<String>> kaasUncommitted = new TreeMap<>(ApacheImportIT::compare);
            Map<TopicPartition, List<String>> kaasCommitted = new TreeMap<>(ApacheImportIT::compare);
            readAll(kaas.bootstrap(), "read_uncommitted", kaasUncommitted);
            readAll(kaas.bootstrap(), "read_committed", kaasCommitted);
            assertThat(kaasUncommitted).isEqualTo(uncommitted);
            assertThat(kaasCommitted).isEqualTo(committed);
            assertThat(committed.get(new TopicPartition("txn", 0))).hasSize(10);
            assertThat(uncommitted.get(new TopicPartition("txn", 0))).hasSize(15);
            TopicPartition open = new TopicPartition("open-txn", 0);
            assertThat(kaasUncommitted.get(open))
                    .as("the open transaction's records are kept")
                    .hasSize(3);
            assertThat(kaasCommitted.get(open))
                    .as("but aborted: never read_committed")
                    .isEmpty();
            try (Admin admin = kaas.admin()) {
                assertThat(admin.listOffsets(Map.of(open, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                                .partitionResult(open)
                                .get()
                                .offset())
                        .as("3 records and the ABORT marker the import wrote")
                        .isEqualTo(4);
            }
            try (KafkaProducer<byte[], byte[]> again =
                    producer(kaas.bootstrap(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-open"))) {
                again.initTransactions(); // the transactional id is free again: nothing left ongoing
                again.beginTransaction();
                again.send(new ProducerRecord<>("open-txn", "n".getBytes(), "after import".getBytes()));
                again.commitTransaction();
            }

            try (Admin admin = kaas.admin()) {
                Map<String, String> ids = new TreeMap<>();
                admin.describeTopics(TOPICS)
                        .allTopicNames()
                        .get()
                        .forEach((n, d) -> ids.put(n, d.topicId().toString()));
                assertThat(ids).isEqualTo(topicIds);
                Config compacted = admin.describeConfigs(
                                List.of(new ConfigResource(ConfigResource.Type.TOPIC, "compacted")))
                        .all()
                        .get()
                        .values()
                        .iterator()
                        .next();
                assertThat(compacted.get("cleanup.policy").value()).isEqualTo("compact");
                Config orders = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "orders")))
                        .all()
                        .get()
                        .values()
                        .iterator()
                        .next();
                assertThat(orders.get("segment.bytes").value()).isEqualTo("1048576");
                assertThat(admin.listConsumerGroupOffsets("g1")
                                .partitionsToOffsetAndMetadata()
                                .get())
                        .isEqualTo(withLeaderEpochs(groupOffsets, admin));
            }

            try (KafkaConsumer<byte[], byte[]> c = consumer(kaas.bootstrap(), "g1", "read_committed")) {
                c.subscribe(List.of("orders"));
                Map<Integer, Long> firstSeen = new TreeMap<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (firstSeen.size() < 3 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                        firstSeen.putIfAbsent(r.partition(), r.offset());
                    }
                }
                assertThat(firstSeen).isEqualTo(Map.of(0, 123L, 1, 250L, 2, 7L));
            }

            // The producer Apache knew carries on against kaas (same port): its next sequence is accepted, no
            // duplicate.
            RecordMetadata next = carriedOn
                    .send(new ProducerRecord<>(
                            "orders", lastBeforeStop.partition(), "after".getBytes(), "import".getBytes()))
                    .get();
            assertThat(next.offset()).isEqualTo(lastBeforeStop.offset() + 1);

            // A group commits on kaas too, so the way back carries kaas's own commits beside Apache's.
            try (Admin admin = kaas.admin()) {
                admin.alterConsumerGroupOffsets(
                                "g2", Map.of(new TopicPartition("compacted", 0), new OffsetAndMetadata(42, "kaas")))
                        .all()
                        .get();
            }
            kaasState = ServedState.of(kaas.bootstrap(), kaas.admin(), List.of("g1", "g2"));

            KaasRun live = KaasRun.of(
                    "export",
                    "--data-dir",
                    data.toString(),
                    "--to",
                    work.resolve("never-exported").toString());
            assertThat(live.exitCode())
                    .as("a running broker's data dir is refused")
                    .isEqualTo(3);
            assertThat(live.err()).contains("owned by a running broker");
            assertThat(work.resolve("never-exported")).doesNotExist();
        }
        exportedLogDirServesWhatKaasServed(data);
    }

    /**
     * The round trip's way back: the kaas data dir (stopped) exported, a real Apache 4.4 started on the result
     * without formatting serves the same records at the same offsets (both isolation levels), topic ids, configs
     * and group offsets as kaas did.
     */
    private void exportedLogDirServesWhatKaasServed(Path data) throws Exception {
        Path exported = work.resolve("exported-logs");
        int controller = ApacheKafkaProcess.freePort();
        KaasRun dry =
                KaasRun.of("export", "--data-dir", data.toString(), "--to", exported.toString(), "--dry-run", "--json");
        assertThat(dry.exitCode()).as(dry.out() + dry.err()).isZero();
        assertThat(dry.out()).contains("\"dryRun\":true").contains("\"groupId\":\"g2\"");
        assertThat(exported).doesNotExist();

        KaasRun run = KaasRun.of(
                "export",
                "--data-dir",
                data.toString(),
                "--to",
                exported.toString(),
                "--controller",
                "127.0.0.1:" + controller);
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out())
                .contains("exported orders-0 -> ")
                .contains("(hard links and copies)")
                .contains("exported group g1: 3 committed offset(s) into __consumer_offsets-");
        assertThat(exported.resolve("orders-0").resolve("00000000000000000000.log"))
                .exists();
        assertThat(exported.resolve("orders-0").resolve("partition.metadata")).exists();

        KaasRun again = KaasRun.of("export", "--data-dir", data.toString(), "--to", exported.toString());
        assertThat(again.exitCode()).as("a log dir not empty is refused").isEqualTo(3);

        String kaasFilesBefore = describeFiles(data);
        try (ApacheKafkaProcess apache = ApacheKafkaProcess.start(work, exported, false, controller)) {
            ServedState back = ServedState.of(apache.bootstrap(), apache.admin(), List.of("g1", "g2"));
            assertThat(back.uncommitted()).isEqualTo(kaasState.uncommitted());
            assertThat(back.committed()).isEqualTo(kaasState.committed());
            assertThat(back.logEnds()).isEqualTo(kaasState.logEnds());
            assertThat(back.topicIds()).isEqualTo(topicIds);
            assertThat(back.configs()).isEqualTo(kaasState.configs());
            assertThat(back.groupOffsets()).isEqualTo(kaasState.groupOffsets());
            assertThat(back.configs().get("orders")).containsEntry("segment.bytes", "1048576");
            assertThat(back.configs().get("compacted")).containsEntry("cleanup.policy", "compact");
            assertThat(back.groupOffsets().get("g1")).hasSize(3);
            assertThat(back.groupOffsets().get("g2"))
                    .containsEntry(new TopicPartition("compacted", 0), new OffsetAndMetadata(42, "kaas"));
            assertThat(back.uncommitted().get(new TopicPartition("orders", lastBeforeStop.partition())))
                    .as("the record produced on kaas")
                    .anyMatch(r -> r.contains(Arrays.toString("after".getBytes())));
            System.out.println("round trip Apache -> kaas -> Apache compared: "
                    + back.uncommitted().values().stream().mapToInt(List::size).sum() + " records ("
                    + back.committed().values().stream().mapToInt(List::size).sum() + " read_committed), "
                    + back.logEnds().values().stream()
                            .mapToLong(Long::longValue)
                            .sum() + " log-end offsets over "
                    + back.logEnds().size() + " partitions, "
                    + back.groupOffsets().values().stream().mapToInt(Map::size).sum() + " group offsets in "
                    + back.groupOffsets().size() + " groups");
        }
        assertThat(describeFiles(data))
                .as("kaas's files untouched by export and by Apache on the export (hard links included)")
                .isEqualTo(kaasFilesBefore);
    }

    /** What a broker serves, to compare kaas with Apache: records, log ends, topic configs, group offsets. */
    private record ServedState(
            Map<TopicPartition, List<String>> uncommitted,
            Map<TopicPartition, List<String>> committed,
            Map<TopicPartition, Long> logEnds,
            Map<String, String> topicIds,
            Map<String, Map<String, String>> configs,
            Map<String, Map<TopicPartition, OffsetAndMetadata>> groupOffsets) {
        static ServedState of(String bootstrap, Admin adminToClose, List<String> groups) throws Exception {
            try (Admin admin = adminToClose) {
                Map<TopicPartition, List<String>> uncommitted = new TreeMap<>(ApacheImportIT::compare);
                Map<TopicPartition, List<String>> committed = new TreeMap<>(ApacheImportIT::compare);
                readAll(bootstrap, "read_uncommitted", uncommitted);
                readAll(bootstrap, "read_committed", committed);
                Map<TopicPartition, Long> logEnds = new TreeMap<>(ApacheImportIT::compare);
                Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
                uncommitted.keySet().forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
                admin.listOffsets(latest).all().get().forEach((tp, o) -> logEnds.put(tp, o.offset()));
                Map<String, String> ids = new TreeMap<>();
                admin.describeTopics(TOPICS)
                        .allTopicNames()
                        .get()
                        .forEach((n, d) -> ids.put(n, d.topicId().toString()));
                Map<String, Map<String, String>> configs = new TreeMap<>();
                admin.describeConfigs(TOPICS.stream()
                                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                                .toList())
                        .all()
                        .get()
                        .forEach((r, c) -> {
                            Map<String, String> set = new TreeMap<>();
                            c.entries().stream()
                                    .filter(e -> e.source()
                                            == org.apache.kafka.clients.admin.ConfigEntry.ConfigSource
                                                    .DYNAMIC_TOPIC_CONFIG)
                                    .forEach(e -> set.put(e.name(), e.value()));
                            configs.put(r.name(), set);
                        });
                Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new TreeMap<>();
                for (String g : groups) {
                    Map<TopicPartition, OffsetAndMetadata> of = new TreeMap<>(ApacheImportIT::compare);
                    of.putAll(admin.listConsumerGroupOffsets(g)
                            .partitionsToOffsetAndMetadata()
                            .get());
                    offsets.put(g, of);
                }
                return new ServedState(uncommitted, committed, logEnds, ids, configs, offsets);
            }
        }
    }

    @Test
    void damagedApacheSegmentIsRefusedWithFileAndByte() throws Exception {
        Path copy = work.resolve("damaged-logs");
        copyTree(logDir, copy);
        Path segment = copy.resolve("orders-1").resolve("00000000000000000000.log");
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.seek(2000);
            int b = f.read();
            f.seek(2000);
            f.write(b ^ 0xff);
        }
        KaasRun run = KaasRun.of(
                "import", copy.toString(), "--data-dir", work.resolve("never").toString(), "--abort-open-transactions");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(3);
        assertThat(run.err()).containsPattern(java.util.regex.Pattern.quote(segment.toString()) + ":[0-9]+");
    }

    private static Map<TopicPartition, OffsetAndMetadata> withLeaderEpochs(
            Map<TopicPartition, OffsetAndMetadata> expected, Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> actual = admin.listConsumerGroupOffsets("g1")
                .partitionsToOffsetAndMetadata()
                .get();
        Map<TopicPartition, OffsetAndMetadata> out = new java.util.HashMap<>();
        expected.forEach((tp, o) -> out.put(
                tp,
                new OffsetAndMetadata(
                        o.offset(),
                        actual.get(tp) == null
                                ? o.leaderEpoch()
                                : actual.get(tp).leaderEpoch(),
                        o.metadata())));
        return out;
    }

    private static void readAll(String bootstrap, String isolation, Map<TopicPartition, List<String>> into) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap, null, isolation)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (String t : TOPICS) {
                c.partitionsFor(t).forEach(p -> tps.add(new TopicPartition(t, p.partition())));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            tps.forEach(tp -> into.put(tp, new ArrayList<>()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    into.get(new TopicPartition(r.topic(), r.partition()))
                            .add(r.offset() + "|" + r.timestamp() + "|"
                                    + r.timestampType() + "|" + Arrays.toString(r.key()) + "|"
                                    + Arrays.toString(r.value()) + "|"
                                    + Arrays.toString(r.headers().toArray()) + "|" + r.leaderEpoch());
                }
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.putAll(overrides);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(p);
    }

    /** Every file under {@code root} with its size and modification time: what "untouched" compares. */
    private static String describeFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .sorted()
                    .map(f -> {
                        try {
                            return root.relativize(f) + " " + Files.size(f) + " "
                                    + Files.getLastModifiedTime(f).toMillis() + " "
                                    + Arrays.hashCode(Files.readAllBytes(f));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .reduce("", (a, b) -> a + b + "\n");
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path dest = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(f, dest);
                }
            }
        }
    }
}
