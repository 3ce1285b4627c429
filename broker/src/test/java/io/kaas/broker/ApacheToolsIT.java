package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's own command-line tools (the kafka-tools artifact), each run as its shell script runs
 * it: its main class in a child JVM. In 4.4 all of them, ConfigCommand included, live in kafka-tools.
 */
class ApacheToolsIT {
    @TempDir
    Path dir;

    TestBroker b;

    @BeforeEach
    void start() {
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterEach
    void stop() {
        b.close();
    }

    private ExternalProcess tool(String stdin, String mainClass, String... args) throws Exception {
        ExternalProcess p = ExternalProcess.java(dir, stdin, mainClass, args);
        assertThat(p.exitCode()).as("%s %s%n%s", mainClass, List.of(args), p).isZero();
        return p;
    }

    @Test
    void kafkaTopicsConsoleClientsGroupsOffsetsAndRecords() throws Exception {
        String bs = b.bootstrap();
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--create",
                "--topic",
                "tools",
                "--partitions",
                "2");
        assertThat(tool(null, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bs, "--list")
                        .out()
                        .lines())
                .contains("tools");
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--alter",
                "--topic",
                "tools",
                "--partitions",
                "3");
        String described = tool(
                        null,
                        "org.apache.kafka.tools.TopicCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--topic",
                        "tools")
                .out();
        assertThat(described).contains("PartitionCount: 3", "Leader: 0");

        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            lines.append("line-").append(i).append('\n');
        }
        tool(lines.toString(), "org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", bs, "--topic", "tools");
        String consumed = tool(
                        null,
                        "org.apache.kafka.tools.consumer.ConsoleConsumer",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "tools",
                        "--from-beginning",
                        "--max-messages",
                        "30",
                        "--group",
                        "console-group",
                        "--timeout-ms",
                        "30000")
                .out();
        assertThat(consumed.lines().filter(l -> l.startsWith("line-"))).hasSize(30);

        String groups = tool(
                        null,
                        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--group",
                        "console-group")
                .out();
        assertThat(groups).contains("console-group", "tools");
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                                "--bootstrap-server",
                                bs,
                                "--list")
                        .out())
                .contains("console-group");
        String reset = tool(
                        null,
                        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server",
                        bs,
                        "--reset-offsets",
                        "--group",
                        "console-group",
                        "--topic",
                        "tools",
                        "--to-earliest",
                        "--execute")
                .out();
        assertThat(reset).contains("tools");
        String afterReset = tool(
                        null,
                        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--group",
                        "console-group")
                .out();
        assertThat(afterReset.lines().filter(l -> l.contains("tools")).toList())
                .allMatch(l -> l.split("\\s+")[3].equals("0"));

        String offsets = tool(
                        null, "org.apache.kafka.tools.GetOffsetShell", "--bootstrap-server", bs, "--topic", "tools")
                .out();
        long total = offsets.lines()
                .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(':') + 1)))
                .sum();
        assertThat(total).isEqualTo(30);

        // The console producer's sticky partitioner may leave partitions empty: delete in the fullest one.
        String fullest = offsets.lines()
                .max(java.util.Comparator.comparingLong(l -> Long.parseLong(l.substring(l.lastIndexOf(':') + 1))))
                .orElseThrow();
        int partition = Integer.parseInt(fullest.split(":")[1]);
        Path json = dir.resolve("delete.json");
        Files.writeString(
                json,
                "{\"partitions\":[{\"topic\":\"tools\",\"partition\":" + partition + ",\"offset\":2}],\"version\":1}");
        String deleted = tool(
                        null,
                        "org.apache.kafka.tools.DeleteRecordsCommand",
                        "--bootstrap-server",
                        bs,
                        "--offset-json-file",
                        json.toString())
                .out();
        assertThat(deleted).contains("low_watermark: 2");
        String earliest = tool(
                        null,
                        "org.apache.kafka.tools.GetOffsetShell",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "tools",
                        "--partitions",
                        Integer.toString(partition),
                        "--time",
                        "-2")
                .out();
        assertThat(earliest.trim()).isEqualTo("tools:" + partition + ":2");

        tool(null, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bs, "--delete", "--topic", "tools");
        assertThat(tool(null, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bs, "--list")
                        .out()
                        .lines())
                .doesNotContain("tools");
    }

    @Test
    void kafkaConfigsAndBrokerApiVersions() throws Exception {
        String bs = b.bootstrap();
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--create",
                "--topic",
                "cfg",
                "--partitions",
                "1");
        tool(
                null,
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                bs,
                "--alter",
                "--entity-type",
                "topics",
                "--entity-name",
                "cfg",
                "--add-config",
                "retention.ms=60000,segment.bytes=1048576");
        String described = tool(
                        null,
                        "org.apache.kafka.tools.ConfigCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        "cfg")
                .out();
        assertThat(described).contains("retention.ms=60000", "segment.bytes=1048576");
        tool(
                null,
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                bs,
                "--alter",
                "--entity-type",
                "topics",
                "--entity-name",
                "cfg",
                "--delete-config",
                "retention.ms");
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.ConfigCommand",
                                "--bootstrap-server",
                                bs,
                                "--describe",
                                "--entity-type",
                                "topics",
                                "--entity-name",
                                "cfg")
                        .out())
                .doesNotContain("retention.ms=60000");
        assertThat(b.broker().engine().topic("cfg").orElseThrow().config().segmentBytes())
                .isEqualTo(1048576L);
        String all = tool(
                        null,
                        "org.apache.kafka.tools.ConfigCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--all",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        "cfg")
                .out();
        java.util.List<String> listed = all.lines()
                .map(String::trim)
                .filter(l -> l.contains("=") && l.contains(" sensitive="))
                .map(l -> l.substring(0, l.indexOf('=')))
                .toList();
        assertThat(listed)
                .containsExactlyInAnyOrderElementsOf(
                        org.apache.kafka.storage.internals.log.LogConfig.nonInternalConfigNames());
        assertThat(all)
                .contains("segment.bytes=1048576 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576");
        String broker = tool(
                        null,
                        "org.apache.kafka.tools.ConfigCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--all",
                        "--entity-type",
                        "brokers",
                        "--entity-name",
                        "0")
                .out();
        assertThat(broker)
                .contains(
                        "log.retention.hours=168 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.hours=168}",
                        "message.max.bytes=1048588",
                        "num.partitions=");

        String versions = tool(null, "org.apache.kafka.tools.BrokerApiVersionsCommand", "--bootstrap-server", bs)
                .out();
        assertThat(versions).contains("Produce(0): 3 to 13", "Fetch(1): 4 to 18", "ApiVersions(18)");
    }

    /**
     * kafka-broker-api-versions lists as usable every API a single Apache 4.4 broker serves to clients: all of
     * ApiKeys' broker-listener APIs but the KRaft controller's (DescribeQuorum, UnregisterBroker, AddRaftVoter,
     * RemoveRaftVoter, UnregisterController) and the share coordinator's internal state APIs (83-87), each at
     * kafka-clients 4.4's newest version.
     */
    @Test
    void kafkaBrokerApiVersionsListsEveryClientApiOfAnApacheBroker() throws Exception {
        String versions = tool(
                        null, "org.apache.kafka.tools.BrokerApiVersionsCommand", "--bootstrap-server", b.bootstrap())
                .out();
        java.util.Set<Integer> usable = new java.util.TreeSet<>();
        java.util.Map<Integer, Integer> usableVersion = new java.util.TreeMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\((\\d+)\\): [^,\\n]*\\[usable: (\\d+)\\]")
                .matcher(versions);
        while (m.find()) {
            usable.add(Integer.parseInt(m.group(1)));
            usableVersion.put(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
        java.util.Set<Integer> internal = java.util.Set.of(55, 64, 80, 81, 94, 83, 84, 85, 86, 87);
        java.util.Set<Integer> notYet = java.util.Set.of();
        List<Integer> clientApis = org.apache.kafka.common.protocol.ApiKeys.apisForListener(
                        org.apache.kafka.common.message.ApiMessageType.ListenerType.BROKER)
                .stream()
                .map(k -> (int) k.id)
                .filter(id -> !internal.contains(id))
                .toList();
        assertThat(clientApis).hasSize(69);
        assertThat(usable)
                .as(versions)
                .containsAll(
                        clientApis.stream().filter(id -> !notYet.contains(id)).toList());
        // Each at the newest version kafka-clients 4.4 speaks: the tool's "usable" is the lower of the two maxima.
        for (int id : usableVersion.keySet()) {
            org.apache.kafka.common.protocol.ApiKeys k = org.apache.kafka.common.protocol.ApiKeys.forId(id);
            assertThat(usableVersion.get(id))
                    .as(
                            "%s: kaas serves it only up to v%d, kafka-clients 4.4 speaks v%d",
                            k, usableVersion.get(id), k.latestVersion())
                    .isEqualTo(k.latestVersion());
        }
    }

    /**
     * kafka-reassign-partitions --execute with a {@code log_dirs} reassignment (AlterReplicaLogDirs, KIP-113) moves a
     * partition to the broker's other log dir, and kafka-log-dirs --describe then lists it there, its records all
     * still read back.
     */
    @Test
    void kafkaReassignPartitionsMovesAPartitionBetweenLogDirs() throws Exception {
        String d0 = dir.resolve("pool0").toAbsolutePath().toString();
        String d1 = dir.resolve("pool1").toAbsolutePath().toString();
        try (TestBroker pool = new TestBroker(io.kaas.broker.config.BrokerConfig.forTest(dir.resolve("pool0"))
                .withLogDirs(io.kaas.storage.layout.LogDirs.parse(d0 + "," + d1)))) {
            String bs = pool.bootstrap();
            tool(
                    null,
                    "org.apache.kafka.tools.TopicCommand",
                    "--bootstrap-server",
                    bs,
                    "--create",
                    "--topic",
                    "disks",
                    "--partitions",
                    "1");
            try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> p =
                    pool.producer(java.util.Map.of())) {
                for (int i = 0; i < 100; i++) {
                    p.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                            "disks", 0, null, new byte[] {(byte) i}));
                }
                p.flush();
            }
            assertThat(tool(
                                    null,
                                    "org.apache.kafka.tools.LogDirsCommand",
                                    "--bootstrap-server",
                                    bs,
                                    "--describe",
                                    "--topic-list",
                                    "disks")
                            .out())
                    .containsPattern(inDir(d0, "disks-0"));
            Path plan = dir.resolve("move.json");
            java.nio.file.Files.writeString(
                    plan,
                    "{\"version\":1,\"partitions\":[{\"topic\":\"disks\",\"partition\":0,\"replicas\":[0],"
                            + "\"log_dirs\":[\"" + d1 + "\"]}]}");
            String executed = tool(
                            null,
                            "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                            "--bootstrap-server",
                            bs,
                            "--execute",
                            "--reassignment-json-file",
                            plan.toString())
                    .out();
            assertThat(executed)
                    .contains("Successfully started moving log directory to " + d1
                            + " for replica disks-0 with broker 0");
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> tool(
                                            null,
                                            "org.apache.kafka.tools.LogDirsCommand",
                                            "--bootstrap-server",
                                            bs,
                                            "--describe",
                                            "--topic-list",
                                            "disks")
                                    .out()
                                    .matches("(?s).*" + inDir(d1, "disks-0") + ".*")
                            && !java.nio.file.Files.exists(dir.resolve("pool0/disks/0")));
            assertThat(tool(
                                    null,
                                    "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                                    "--bootstrap-server",
                                    bs,
                                    "--verify",
                                    "--reassignment-json-file",
                                    plan.toString())
                            .out())
                    .contains("disks-0-0", "completed")
                    .doesNotContain("in progress");
            try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
                    pool.consumer(java.util.Map.of())) {
                org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition("disks", 0);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                List<Integer> read = new java.util.ArrayList<>();
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(30))
                        .until(() -> {
                            c.poll(java.time.Duration.ofMillis(100)).forEach(r -> read.add((int) r.value()[0]));
                            return read.size() >= 100;
                        });
                assertThat(read).hasSize(100);
                for (int i = 0; i < 100; i++) {
                    assertThat(read.get(i)).isEqualTo((int) (byte) i);
                }
            }
        }
    }

    /** kafka-log-dirs --describe's JSON: {@code partition} listed (not as a future replica) under log dir {@code path}. */
    private static String inDir(String path, String partition) {
        return "\\{\"partitions\":\\[\\{\"partition\":\"" + partition + "\"[^}]*\"isFuture\":false}],\"error\":null,"
                + "\"logDir\":\"" + java.util.regex.Pattern.quote(path) + "\"";
    }

    @Test
    void verifiableProducerAndConsumer() throws Exception {
        String bs = b.bootstrap();
        String produced = tool(
                        null,
                        "org.apache.kafka.tools.VerifiableProducer",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "verified",
                        "--max-messages",
                        "200",
                        "--acks",
                        "-1")
                .out();
        assertThat(produced).contains("\"name\":\"tool_data\"", "\"sent\":200", "\"acked\":200");
        String consumed = tool(
                        null,
                        "org.apache.kafka.tools.VerifiableConsumer",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "verified",
                        "--group-id",
                        "verifiers",
                        "--max-messages",
                        "200",
                        "--reset-policy",
                        "earliest")
                .out();
        assertThat(consumed).contains("\"name\":\"offsets_committed\"", "\"success\":true");
        long records = consumed.lines()
                .filter(l -> l.contains("\"name\":\"records_consumed\""))
                .mapToLong(l -> Long.parseLong(l.replaceAll(".*\"count\":(\\d+).*", "$1")))
                .sum();
        assertThat(records).isEqualTo(200);
    }

    @Test
    void performanceTools() throws Exception {
        String bs = b.bootstrap();
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--create",
                "--topic",
                "perf",
                "--partitions",
                "2");
        String produced = tool(
                        null,
                        "org.apache.kafka.tools.ProducerPerformance",
                        "--topic",
                        "perf",
                        "--num-records",
                        "2000",
                        "--record-size",
                        "100",
                        "--throughput",
                        "-1",
                        "--bootstrap-server",
                        bs,
                        "--command-property",
                        "acks=all")
                .out();
        assertThat(produced).contains("2000 records sent");
        String consumed = tool(
                        null,
                        "org.apache.kafka.tools.ConsumerPerformance",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "perf",
                        "--num-records",
                        "2000",
                        "--group",
                        "perf-group",
                        "--timeout",
                        "30000")
                .out();
        // The data row's fifth column is data.consumed.in.nMsg.
        assertThat(consumed.lines().filter(l -> l.matches("^\\d{4}-.*")).map(l -> l.split(",\\s*")[4].trim()))
                .containsExactly("2000");
        String latency = tool(
                        null,
                        "org.apache.kafka.tools.EndToEndLatency",
                        "--bootstrap-server",
                        bs,
                        "--topic",
                        "perf",
                        "--num-records",
                        "100",
                        "--producer-acks",
                        "all",
                        "--record-size",
                        "100")
                .out();
        assertThat(latency).contains("Avg latency:", "Percentiles:");
    }

    @Test
    void logDirsFeaturesClusterIdOffsetsByTimeGroupDeletionAndStreamsReset() throws Exception {
        String bs = b.bootstrap();
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--create",
                "--topic",
                "times",
                "--partitions",
                "1");
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> p = b.producer(java.util.Map.of())) {
            for (int i = 0; i < 10; i++) {
                p.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                        "times", 0, 1_000_000L + i * 1000, null, new byte[] {(byte) i}));
            }
            p.flush();
        }
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
                b.consumer(java.util.Map.of("group.id", "app"))) {
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition("times", 0);
            c.commitSync(java.util.Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(7)));
        }
        tool(
                null,
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bs,
                "--create",
                "--topic",
                "app-store-changelog",
                "--partitions",
                "1");

        // By time (one batch of ten records: the answer is the record, not the batch), max timestamp, earliest local.
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.GetOffsetShell",
                                "--bootstrap-server",
                                bs,
                                "--topic",
                                "times",
                                "--time",
                                "1004500")
                        .out()
                        .trim())
                .isEqualTo("times:0:5");
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.GetOffsetShell",
                                "--bootstrap-server",
                                bs,
                                "--topic",
                                "times",
                                "--time",
                                "-3")
                        .out()
                        .trim())
                .isEqualTo("times:0:9");
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.GetOffsetShell",
                                "--bootstrap-server",
                                bs,
                                "--topic",
                                "times",
                                "--time",
                                "-4")
                        .out()
                        .trim())
                .isEqualTo("times:0:0");

        String logDirs = tool(
                        null,
                        "org.apache.kafka.tools.LogDirsCommand",
                        "--bootstrap-server",
                        bs,
                        "--describe",
                        "--topic-list",
                        "times")
                .out();
        assertThat(logDirs).contains("\"partition\":\"times-0\"", "\"logDir\":\"" + b.dataDir());
        assertThat(tool(null, "org.apache.kafka.tools.FeatureCommand", "--bootstrap-server", bs, "describe")
                        .out())
                .contains("Feature: metadata.version", "FinalizedVersionLevel: 4.4");
        assertThat(tool(null, "org.apache.kafka.tools.ClusterTool", "cluster-id", "--bootstrap-server", bs)
                        .out())
                .contains("Cluster ID: " + BrokerConfig.DEFAULT_CLUSTER_ID);
        assertThat(tool(null, "org.apache.kafka.tools.GroupsCommand", "--bootstrap-server", bs, "--list")
                        .out())
                .contains("app");

        // Streams' reset tool: input offsets back to earliest, internal topics of the application deleted.
        String reset = tool(
                        null,
                        "org.apache.kafka.tools.StreamsResetter",
                        "--bootstrap-server",
                        bs,
                        "--application-id",
                        "app",
                        "--input-topics",
                        "times",
                        "--to-earliest")
                .out();
        assertThat(reset).contains("Topic: times Partition: 0 Offset: 0", "app-store-changelog");
        assertThat(tool(null, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bs, "--list")
                        .out()
                        .lines())
                .contains("times")
                .doesNotContain("app-store-changelog");

        String deletedOffsets = tool(
                        null,
                        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server",
                        bs,
                        "--delete-offsets",
                        "--group",
                        "app",
                        "--topic",
                        "times")
                .out();
        assertThat(deletedOffsets).contains("Successful");
        String deleted = tool(
                        null,
                        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server",
                        bs,
                        "--delete",
                        "--group",
                        "app")
                .out();
        assertThat(deleted).contains("Deletion of requested consumer groups ('app') was successful.");
        assertThat(tool(
                                null,
                                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                                "--bootstrap-server",
                                bs,
                                "--list")
                        .out())
                .doesNotContain("app");
    }
}
