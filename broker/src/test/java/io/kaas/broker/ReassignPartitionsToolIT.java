package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.etcd.EtcdServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache's {@code kafka-reassign-partitions} (kafka-tools' ReassignPartitionsCommand, run in a child JVM as its
 * script runs it) against three kaas brokers sharing a directory, coordinated by a real etcd (the JVM's shared one,
 * as {@link MultiBrokerIT}): --generate, --execute moves a partition to another broker, --verify reports it
 * complete and clears the throttles, Metadata names the new leader, records produced before and after are all
 * read back; a target of two brokers is refused saying why; a move whose target broker went away stays in progress
 * (--list) until --cancel calls it off.
 */
@ExtendWith(EtcdServer.Shared.class)
class ReassignPartitionsToolIT {
    private static final String TOOL = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    @TempDir
    Path dir;

    private final List<KaasBroker> brokers = new ArrayList<>();
    private final String clusterId = "reassign-" + UUID.randomUUID();

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    private KaasBroker start(EtcdServer etcd, int id) {
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("data"))
                .withBrokerId(id)
                .withClusterId(clusterId)
                .withDefaultPartitions(6);
        ClusterConfig cluster = ClusterConfig.parse("etcd://" + etcd.endpoint())
                .withTimings(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(500));
        KaasBroker b = KaasBroker.create(config, SecurityConfig.none(), cluster);
        brokers.add(b);
        return b.start();
    }

    private ExternalProcess run(String... args) throws Exception {
        return ExternalProcess.java(dir, null, TOOL, args);
    }

    private ExternalProcess tool(String... args) throws Exception {
        ExternalProcess p = run(args);
        assertThat(p.exitCode())
                .as("kafka-reassign-partitions %s%n%s", List.of(args), p)
                .isZero();
        return p;
    }

    private Path json(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private static String moveJson(int partition, String replicas) {
        return "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":" + partition + ",\"replicas\":["
                + replicas + "]}]}";
    }

    @Test
    void executeVerifyAndCancelMoveAPartitionBetweenBrokers(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        KaasBroker b2 = start(etcd, 2);
        String bs = b0.bootstrapServers();
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bs, AdminClientConfig.METADATA_MAX_AGE_CONFIG, "500"))) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> b0.engine().taken().size() == 2
                            && b1.engine().taken().size() == 2
                            && b2.engine().taken().size() == 2);
            Set<String> sent = new HashSet<>(MultiBrokerIT.produce(b0, "a", 12));

            String generated = tool(
                            "--bootstrap-server",
                            bs,
                            "--generate",
                            "--broker-list",
                            "0,1,2",
                            "--topics-to-move-json-file",
                            json("topics.json", "{\"version\":1,\"topics\":[{\"topic\":\"t\"}]}")
                                    .toString())
                    .out();
            assertThat(generated)
                    .contains("Current partition replica assignment", "Proposed partition reassignment configuration");

            // A partition broker 0 serves, to broker 1.
            int p = b0.engine().taken().keySet().iterator().next().partition();
            TopicPartition tp = new TopicPartition("t", p);
            Path move = json("move.json", moveJson(p, "1"));
            String executed = tool("--bootstrap-server", bs, "--execute", "--reassignment-json-file", move.toString())
                    .out();
            assertThat(executed).contains("Successfully started partition reassignment for t-" + p);
            String[] verified = new String[1];
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        verified[0] = tool(
                                        "--bootstrap-server",
                                        bs,
                                        "--verify",
                                        "--reassignment-json-file",
                                        move.toString())
                                .out();
                        return verified[0].contains("Reassignment of partition t-" + p + " is completed.");
                    });
            assertThat(verified[0])
                    .contains(
                            "Clearing broker-level throttles on brokers 0,1,2",
                            "Clearing topic-level throttles on topic t");
            assertThat(b1.engine().taken()).containsKey(new io.kaas.storage.TopicPartition("t", p));
            assertThat(b0.engine().taken()).doesNotContainKey(new io.kaas.storage.TopicPartition("t", p));
            assertThat(metadataLeader(b2, p))
                    .as("Metadata names the new leader")
                    .isEqualTo(1);
            sent.addAll(MultiBrokerIT.produce(b2, "b", 12));
            assertThat(MultiBrokerIT.consumeAll(b2, 6)).containsExactlyInAnyOrderElementsOf(sent);

            // Two brokers: refused by the broker, saying why; nothing moves.
            ExternalProcess twice = run(
                    "--bootstrap-server",
                    bs,
                    "--execute",
                    "--reassignment-json-file",
                    json("two.json", moveJson(p, "1,2")).toString());
            assertThat(twice.exitCode()).as(twice.toString()).isNotZero();
            assertThat(twice.out() + twice.err())
                    .contains(
                            "Error reassigning partition(s):",
                            "t-" + p + ": kaas keeps one copy of each partition",
                            "a reassignment names exactly one broker");
            // A broker that is not live: Apache's message (the tool itself refuses an id DescribeCluster does not
            // list).
            assertThatThrownBy(() -> admin.alterPartitionReassignments(
                                    Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(7)))))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("includes broker 7, but no such broker is registered");
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(metadataLeader(b2, p)).isEqualTo(1);

            // The target goes away: another broker serves the partition meanwhile, and the move is in progress again
            // (as an Apache reassignment to a broker that went down) until cancelled.
            b1.stop();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                PartitionReassignment r = admin.listPartitionReassignments()
                        .reassignments()
                        .get(30, TimeUnit.SECONDS)
                        .get(tp);
                assertThat(r).isNotNull();
                assertThat(r.addingReplicas()).containsExactly(1);
                assertThat(r.removingReplicas()).hasSize(1);
            });
            int meanwhile = admin.listPartitionReassignments()
                    .reassignments()
                    .get(30, TimeUnit.SECONDS)
                    .get(tp)
                    .removingReplicas()
                    .get(0);
            assertThat(tool("--bootstrap-server", bs, "--list").out())
                    .contains("t-" + p + ": replicas: 1," + meanwhile + ". adding: 1. removing: " + meanwhile + ".");
            assertThat(tool(
                                    "--bootstrap-server",
                                    bs,
                                    "--verify",
                                    "--preserve-throttles",
                                    "--reassignment-json-file",
                                    move.toString())
                            .out())
                    .contains("Reassignment of partition t-" + p + " is still in progress.");
            // Broker 1 is gone: clearing its throttles would wait for it, so keep them (there are none).
            assertThat(tool(
                                    "--bootstrap-server",
                                    bs,
                                    "--cancel",
                                    "--preserve-throttles",
                                    "--reassignment-json-file",
                                    move.toString())
                            .out())
                    .contains("Successfully cancelled partition reassignment for: t-" + p);
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(tool("--bootstrap-server", bs, "--list").out()).contains("No partition reassignments found.");
            assertThatThrownBy(() -> admin.alterPartitionReassignments(Map.of(tp, Optional.empty()))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(NoReassignmentInProgressException.class);
            assertThat(metadataLeader(b2, p))
                    .as("served by a live broker, not moved back to broker 1")
                    .isIn(0, 2);
            sent.addAll(MultiBrokerIT.produce(b0, "c", 12));
            assertThat(MultiBrokerIT.consumeAll(b0, 6)).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    /** Partition {@code p}'s leader as a producer's Metadata request finds it through {@code via}. */
    private static int metadataLeader(KaasBroker via, int p) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            PartitionInfo info = producer.partitionsFor("t").stream()
                    .filter(i -> i.partition() == p)
                    .findFirst()
                    .orElseThrow();
            return info.leader() == null ? -1 : info.leader().id();
        }
    }
}
