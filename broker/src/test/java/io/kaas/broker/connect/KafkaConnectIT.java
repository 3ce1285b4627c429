package io.kaas.broker.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.format.CleanerCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.apache.kafka.connect.util.FutureCallback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unmodified Kafka Connect distributed worker on kaas. It creates its three internal topics
 * (configs, offsets, status: compacted, checked by Connect's own cleanup-policy check through
 * DescribeConfigs), joins its group with the "connect" protocol, and runs a source connector that moves
 * a file's lines into a topic and a sink connector that moves them back out into another file. A second
 * worker, after the first stopped, finds the connectors in the config topic and resumes the source from
 * the offset it committed: the lines added meanwhile come out once, the old ones are not sent again.
 */
class KafkaConnectIT {
    private static final String TOPIC = "connect-lines";
    private static final String CONFIGS = "connect-configs", OFFSETS = "connect-offsets", STATUS = "connect-status";

    @TempDir
    Path dir;

    @Test
    void distributedWorkerMovesLinesInAndOutAndResumesFromItsOffsets() throws Exception {
        Path in = dir.resolve("in.txt");
        Path out = dir.resolve("out.txt");
        List<String> lines = new ArrayList<>(
                IntStream.range(0, 500).mapToObj(i -> "line " + i).toList());
        Files.write(in, lines);
        // Tiny segments and an eager cleaner: Connect's compacted internal topics are compacted under it.
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("data"))
                .withSegmentBytes(1024)
                .withCleaner(new CleanerSettings(1, 16L << 20, 64 * 1024, Duration.ofMillis(100)));
        try (TestBroker b = new TestBroker(config)) {
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                        .all()
                        .get();
            }
            Connect<DistributedHerder> worker = startWorker(b);
            try {
                put(
                        worker,
                        "lines-in",
                        Map.of(
                                "connector.class",
                                LineFileSourceConnector.class.getName(),
                                "tasks.max",
                                "1",
                                LineFileSourceConnector.FILE,
                                in.toString(),
                                LineFileSourceConnector.TOPIC,
                                TOPIC));
                put(
                        worker,
                        "lines-out",
                        Map.of(
                                "connector.class",
                                LineFileSinkConnector.class.getName(),
                                "tasks.max",
                                "1",
                                "topics",
                                TOPIC,
                                LineFileSinkConnector.FILE,
                                out.toString()));
                awaitLines(out, lines);
                assertInternalTopicsCompacted(b);
            } finally {
                worker.stop();
            }
            // The second worker reads its connectors and source offsets back from compacted topics.
            Path configs = dir.resolve("data").resolve(CONFIGS).resolve("0");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Files.exists(configs.resolve(CleanerCheckpoint.FILE_NAME)));

            lines.addAll(IntStream.range(500, 600).mapToObj(i -> "line " + i).toList());
            Files.write(in, lines);
            Connect<DistributedHerder> second = startWorker(b);
            try {
                awaitLines(out, lines);
                assertThat(second.herder().connectors()).containsExactlyInAnyOrder("lines-in", "lines-out");
            } finally {
                second.stop();
            }
        }
    }

    private static Connect<DistributedHerder> startWorker(TestBroker b) {
        Map<String, String> cfg = new HashMap<>();
        cfg.put("bootstrap.servers", b.bootstrap());
        cfg.put("group.id", "connect-cluster");
        cfg.put("config.storage.topic", CONFIGS);
        cfg.put("offset.storage.topic", OFFSETS);
        cfg.put("status.storage.topic", STATUS);
        cfg.put("config.storage.replication.factor", "1");
        cfg.put("offset.storage.replication.factor", "1");
        cfg.put("status.storage.replication.factor", "1");
        cfg.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        cfg.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        cfg.put("listeners", "http://127.0.0.1:0");
        cfg.put("offset.flush.interval.ms", "200");
        // Our test connectors are listed in META-INF/services: no slow reflective scan of the test classpath.
        cfg.put("plugin.discovery", "service_load");
        return new ConnectDistributed().startConnect(cfg);
    }

    private static void put(Connect<DistributedHerder> worker, String name, Map<String, String> config)
            throws Exception {
        FutureCallback<
                        org.apache.kafka.connect.runtime.Herder.Created<
                                org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo>>
                created = new FutureCallback<>();
        Map<String, String> withName = new HashMap<>(config);
        withName.put("name", name);
        worker.herder().putConnectorConfig(name, withName, false, created);
        created.get(30, TimeUnit.SECONDS);
    }

    private static void awaitLines(Path file, List<String> expected) {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(Files.exists(file) ? Files.readAllLines(file) : List.of())
                        .isEqualTo(expected));
    }

    private static void assertInternalTopicsCompacted(TestBroker b) throws Exception {
        try (Admin admin = b.admin()) {
            for (String topic : List.of(CONFIGS, OFFSETS, STATUS)) {
                ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                assertThat(admin.describeConfigs(Set.of(res))
                                .all()
                                .get()
                                .get(res)
                                .get(TopicConfig.CLEANUP_POLICY_CONFIG)
                                .value())
                        .as(topic)
                        .isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
            }
            // Connect requires its config topic to have exactly one partition (it checks this itself).
            assertThat(admin.describeTopics(List.of(CONFIGS))
                            .allTopicNames()
                            .get()
                            .get(CONFIGS)
                            .partitions())
                    .hasSize(1);
        }
    }
}
