package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.layout.LogDirs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A broker over three log dirs (Apache's log.dirs, KIP-112): placement, a pin, DescribeLogDirs v4, kafka-log-dirs. */
class LogDirsIT {
    @TempDir
    Path dir;

    private LogDirs pool() {
        return LogDirs.parse("[{\"name\":\"d0\",\"path\":\"" + dir.resolve("d0") + "\"},"
                + "{\"name\":\"d1\",\"path\":\"" + dir.resolve("d1") + "\"},"
                + "{\"name\":\"d2\",\"path\":\"" + dir.resolve("d2") + "\",\"labels\":{\"disk\":\"hdd\"}}]");
    }

    /** log dir → topic-partition → size, as Admin.describeLogDirs reports it. */
    private static Map<String, Map<String, Long>> describe(Admin admin) throws Exception {
        Map<String, LogDirDescription> dirs =
                admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0);
        Map<String, Map<String, Long>> out = new TreeMap<>();
        dirs.forEach((path, d) -> {
            assertThat(d.error()).isNull();
            assertThat(d.totalBytes()).isPresent();
            assertThat(d.totalBytes().getAsLong()).isPositive();
            assertThat(d.usableBytes().getAsLong())
                    .isPositive()
                    .isLessThanOrEqualTo(d.totalBytes().getAsLong());
            Map<String, Long> parts = new TreeMap<>();
            d.replicaInfos().forEach((tp, info) -> {
                assertThat(info.isFuture()).isFalse();
                parts.put(tp.toString(), info.size());
            });
            out.put(path, parts);
        });
        return out;
    }

    @Test
    void partitionsSpreadOverTheDirsAPinHoldsAndEveryDirIsDescribed() throws Exception {
        LogDirs pool = pool();
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("d0"))
                .withRetentionCheckInterval(Duration.ZERO)
                .withLogDirs(pool);
        String d0 = dir.resolve("d0").toAbsolutePath().toString();
        String d1 = dir.resolve("d1").toAbsolutePath().toString();
        String d2 = dir.resolve("d2").toAbsolutePath().toString();
        try (TestBroker b = new TestBroker(config)) {
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(
                                new NewTopic("spread", 6, (short) 1),
                                new NewTopic("pinned", 2, (short) 1).configs(Map.of(LogDirs.PIN_CONFIG, "d2"))))
                        .all()
                        .get();
                assertThatThrownBy(() -> admin.createTopics(List.of(
                                        new NewTopic("typo", 1, (short) 1).configs(Map.of(LogDirs.PIN_CONFIG, "d9"))))
                                .all()
                                .get())
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(InvalidConfigurationException.class)
                        .hasMessageContaining("d9");
            }
            try (Admin admin = b.admin()) {
                // The pin is kaas's own key: an alter of the topic's Apache configs keeps it, and DescribeConfigs
                // works.
                ConfigResource pinned = new ConfigResource(ConfigResource.Type.TOPIC, "pinned");
                admin.incrementalAlterConfigs(Map.of(
                                pinned,
                                List.of(new AlterConfigOp(
                                        new ConfigEntry("retention.ms", "600000"), AlterConfigOp.OpType.SET))))
                        .all()
                        .get();
                assertThat(admin.describeConfigs(List.of(pinned))
                                .all()
                                .get()
                                .get(pinned)
                                .get("retention.ms")
                                .value())
                        .isEqualTo("600000");
                admin.createPartitions(Map.of("pinned", NewPartitions.increaseTo(3)))
                        .all()
                        .get();
            }
            produce(b, "spread", 6, 50);
            produce(b, "pinned", 3, 20);
            try (Admin admin = b.admin()) {
                Map<String, Map<String, Long>> dirs = describe(admin);
                assertThat(dirs).containsOnlyKeys(d0, d1, d2);
                assertThat(dirs.get(d0)).containsOnlyKeys("spread-0", "spread-3");
                assertThat(dirs.get(d1)).containsOnlyKeys("spread-1", "spread-4");
                assertThat(dirs.get(d2)).containsOnlyKeys("spread-2", "spread-5", "pinned-0", "pinned-1", "pinned-2");
                dirs.values().forEach(parts -> assertThat(parts.values()).allMatch(size -> size > 0));
            }
            String json = ExternalProcess.java(
                            dir,
                            null,
                            "org.apache.kafka.tools.LogDirsCommand",
                            "--bootstrap-server",
                            b.bootstrap(),
                            "--describe",
                            "--topic-list",
                            "spread,pinned")
                    .out();
            JsonNode report = new ObjectMapper()
                    .readTree(json.lines()
                            .filter(l -> l.startsWith("{"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError(json)));
            Map<String, List<String>> byDir = new TreeMap<>();
            for (JsonNode d : report.get("brokers").get(0).get("logDirs")) {
                List<String> parts = new ArrayList<>();
                d.get("partitions").forEach(p -> parts.add(p.get("partition").asText()));
                byDir.put(d.get("logDir").asText(), parts);
            }
            assertThat(byDir).containsOnlyKeys(d0, d1, d2);
            assertThat(byDir.get(d2))
                    .containsExactlyInAnyOrder("spread-2", "spread-5", "pinned-0", "pinned-1", "pinned-2");

            b.restart();
            try (Admin admin = b.admin()) {
                Map<String, Map<String, Long>> after = describe(admin);
                assertThat(after.get(d0)).containsOnlyKeys("spread-0", "spread-3");
                assertThat(after.get(d2)).containsOnlyKeys("spread-2", "spread-5", "pinned-0", "pinned-1", "pinned-2");
            }
            assertThat(consumeAll(b, "spread", 6)).isEqualTo(6 * 50);
            assertThat(consumeAll(b, "pinned", 3)).isEqualTo(3 * 20);
        }
        assertThat(dir.resolve("d0/__cluster")).isDirectory();
        assertThat(dir.resolve("d1/__cluster")).doesNotExist();
    }

    private static void produce(TestBroker b, String topic, int partitions, int perPartition) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("acks", "all"))) {
            for (int part = 0; part < partitions; part++) {
                for (int i = 0; i < perPartition; i++) {
                    p.send(new ProducerRecord<>(topic, part, null, (topic + part + "-" + i).getBytes()));
                }
            }
            p.flush();
        }
    }

    /** Reads every partition of {@code topic} to its end; checks each record is the one produced there, in order. */
    private static int consumeAll(TestBroker b, String topic, int partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<TopicPartition, Integer> next = new HashMap<>();
        int n = 0;
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of())) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    int i = next.getOrDefault(tp, 0);
                    assertThat(new String(r.value())).isEqualTo(topic + r.partition() + "-" + i);
                    next.put(tp, i + 1);
                }
                return next.values().stream().mapToInt(Integer::intValue).sum() >= total;
            });
            n = next.values().stream().mapToInt(Integer::intValue).sum();
        }
        return n;
    }
}
