package io.kaas.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.TransactionalRecords;
import io.kaas.cli.ChildJvm;
import io.kaas.cli.KaasRun;
import io.kaas.cluster.etcd.EtcdServer;
import io.kaas.protocol.RequestFrame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code kaas serve --coordinator etcd://...} processes over one data directory, with a real etcd:
 * one is killed with SIGKILL, another stopped with SIGSTOP past its lease TTL and then resumed. Every record
 * acknowledged is there once; the stopped broker, resumed, acknowledges nothing and what it was asked to
 * write never becomes visible.
 */
@ExtendWith(EtcdServer.Shared.class)
class SharedVolumeFailoverIT {
    private static final Pattern LISTENING =
            Pattern.compile("listening on .*advertised PLAINTEXT://127\\.0\\.0\\.1:(\\d+)");
    private static final String TOPIC = "t";
    private static final int PARTITIONS = 6;

    @TempDir
    Path dir;

    private final String clusterId = "shared-" + UUID.randomUUID();
    private final Map<Integer, Process> brokers = new HashMap<>();
    private final Map<Integer, Integer> ports = new HashMap<>();

    @AfterEach
    void killAll() throws Exception {
        for (Process p : brokers.values()) {
            resume(p);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private void startBroker(EtcdServer etcd, int id) throws Exception {
        Path log = dir.resolve("broker-" + id + ".log");
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-XX:TieredStopAtLevel=1",
                        "-Xshare:auto",
                        "-cp",
                        ChildJvm.classpath(),
                        "io.kaas.cli.Kaas",
                        "serve",
                        "--listeners",
                        "PLAINTEXT://127.0.0.1:0",
                        "--data-dir",
                        dir.resolve("shared").toString(),
                        "--admin-listener",
                        "none",
                        "--broker-id",
                        Integer.toString(id),
                        "--cluster-id",
                        clusterId,
                        "--coordinator",
                        "etcd://" + etcd.endpoint(),
                        "--coordinator-lease-ttl",
                        "3s")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        brokers.put(id, p);
        Matcher m = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> {
                            if (!p.isAlive()) {
                                throw new IllegalStateException("broker " + id + " exited: " + Files.readString(log));
                            }
                            return LISTENING.matcher(Files.readString(log));
                        },
                        Matcher::find);
        ports.put(id, Integer.parseInt(m.group(1)));
    }

    private String bootstrap() {
        List<String> all = new ArrayList<>();
        ports.forEach((id, port) -> {
            if (brokers.get(id).isAlive()) {
                all.add("127.0.0.1:" + port);
            }
        });
        return String.join(",", all);
    }

    @Test
    void killedAndStoppedBrokersPartitionsMoveAndNothingAcknowledgedIsLostNorAZombieWriteSeen(EtcdServer etcd)
            throws Exception {
        for (int id = 0; id < 3; id++) {
            startBroker(etcd, id);
        }
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        adminProps.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "500");
        Set<String> acked = new HashSet<>();
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            // A broker other than the creator lists a new topic at its next reconcile (a watch event away), as
            // Apache's brokers learn it from the metadata log: until then a describe it answers is UNKNOWN_TOPIC.
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(leaders(admin)).containsOnlyKeys(0, 1, 2));
            acked.addAll(produce("before", 30));

            // kill -9: broker 2's partitions go to 0 and 1 once etcd expires its lease (3 s) plus the grace.
            long killedAt = System.nanoTime();
            brokers.get(2).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            acked.addAll(produce("after-kill", 30)); // blocks per record until the partition's new owner answers
            long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
            assertThat(leaders(admin)).containsOnlyKeys(0, 1);

            // SIGSTOP broker 1 past its TTL: a Produce sent to it meanwhile waits in its socket.
            Process stopped = brokers.get(1);
            List<Integer> itsPartitions = partitionsOf(admin, 1);
            signal(stopped, "STOP");
            try (Socket zombieClient = new Socket("127.0.0.1", ports.get(1))) {
                zombieClient.setSoTimeout(60_000);
                int correlation = sendProduce(zombieClient, itsPartitions.get(0), "zombie-write");
                // A describe the Admin happens to send to the stopped broker times out: ask again (the
                // Admin then picks a node without a request stuck in flight).
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .untilAsserted(() -> assertThat(leaders(admin)).containsOnlyKeys(0));
                acked.addAll(produce("after-stop", 30));
                signal(stopped, "CONT");
                ProduceResponseData r = readProduceResponse(zombieClient, correlation);
                assertThat(r.responses()
                                .iterator()
                                .next()
                                .partitionResponses()
                                .get(0)
                                .errorCode())
                        .as("the resumed broker acknowledges nothing")
                        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            }
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(leaders(admin)).containsKeys(0));
            acked.addAll(produce("after-resume", 12));

            List<String> read = consumeAll();
            assertThat(read).doesNotContain("zombie-write").doesNotHaveDuplicates();
            assertThat(read).containsAll(acked);
            System.out.println(
                    "failover: kill -9 -> 30 records acknowledged across the takeover in " + failoverMs + " ms");
        }
        // Clean stops (SIGTERM), then the offline verifier over the shared directory: every partition, with
        // its segments of several epochs, is clean.
        for (Process p : brokers.values()) {
            if (p.isAlive()) {
                p.destroy();
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
        }
        KaasRun verify =
                KaasRun.of("verify", dir.resolve("shared").resolve(TOPIC).toString());
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    }

    /**
     * Transactions over three brokers' partitions, the group and the transaction coordinators two different brokers
     * (placed by their slots). The group coordinator is killed with SIGKILL mid-transaction, after it acknowledged the
     * transaction's offsets (TxnOffsetCommit): the group's next coordinator re-reads them, pending, from the shared
     * directory, and the commit's marker makes them the group's offsets. Then the transaction coordinator is killed
     * mid-transaction: the next one re-reads the transaction, the producer commits it once the partitions moved, and a
     * read_committed consumer sees every committed record once and no aborted one.
     */
    @Test
    void transactionsSurviveTheirGroupCoordinatorAndThenTheirTransactionCoordinatorKilled(EtcdServer etcd)
            throws Exception {
        for (int id = 0; id < 3; id++) {
            startBroker(etcd, id);
        }
        String topic = "tx";
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        adminProps.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "500");
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(leaders(admin, topic)).containsOnlyKeys(0, 1, 2));
        }
        String[] picked = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            for (int i = 0; i < 100; i++) {
                                int g = coordinatorOf(CoordinatorType.GROUP, "group-" + i);
                                int t = coordinatorOf(CoordinatorType.TRANSACTION, "tx-" + i);
                                if (g >= 0 && t >= 0 && g != t) {
                                    return new String[] {"group-" + i, "tx-" + i};
                                }
                            }
                            return null;
                        },
                        java.util.Objects::nonNull);
        String group = picked[0];
        int groupCoordinator = coordinatorOf(CoordinatorType.GROUP, group);
        int txnCoordinator = coordinatorOf(CoordinatorType.TRANSACTION, picked[1]);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, picked[1]);
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "90000");
        List<String> committed = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        TopicPartition consumed = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed.addAll(inTransaction(producer, topic, "before-"));
            producer.commitTransaction();
            committed.addAll(inTransaction(producer, topic, "group-coordinator-killed-"));
            producer.sendOffsetsToTransaction(
                    Map.of(consumed, new OffsetAndMetadata(42)), new ConsumerGroupMetadata(group));
            brokers.get(groupCoordinator).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            producer.commitTransaction(); // its marker waits for the group's slot to move, then commits the pending
            // offset
            try (Admin admin = Admin.create(adminProps)) {
                assertThat(admin.listConsumerGroupOffsets(group)
                                .partitionsToOffsetAndMetadata()
                                .get(60, TimeUnit.SECONDS)
                                .get(consumed))
                        .as("the offset the killed group coordinator acknowledged, committed by the transaction")
                        .isEqualTo(new OffsetAndMetadata(42));
            }
            aborted.addAll(inTransaction(producer, topic, "aborted-"));
            producer.abortTransaction();
            committed.addAll(inTransaction(producer, topic, "transaction-coordinator-killed-"));
            brokers.get(txnCoordinator).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            producer.commitTransaction();
            committed.addAll(inTransaction(producer, topic, "after-"));
            producer.commitTransaction();
        }
        assertThat(consumeAll(topic, "read_committed")).containsExactlyInAnyOrderElementsOf(committed);
        assertThat(consumeAll(topic, "read_uncommitted"))
                .containsAll(aborted)
                .hasSize(committed.size() + aborted.size());
    }

    /** The broker FindCoordinator (v4) names for {@code key}, asked of a live broker; -1 when none coordinates it now. */
    private int coordinatorOf(CoordinatorType type, String key) throws Exception {
        int port = ports.entrySet().stream()
                .filter(e -> brokers.get(e.getKey()).isAlive())
                .findFirst()
                .orElseThrow()
                .getValue();
        short version = 4;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            ByteBuffer frame = RequestFrame.encode(
                    ApiKeys.FIND_COORDINATOR,
                    version,
                    5,
                    "failover-test",
                    new FindCoordinatorRequestData().setKeyType(type.id()).setCoordinatorKeys(List.of(key)));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.write(frame.array(), 0, frame.limit());
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ByteBuffer buf = ByteBuffer.wrap(answer);
            new ResponseHeaderData(
                    new ByteBufferAccessor(buf), ApiKeys.FIND_COORDINATOR.responseHeaderVersion(version));
            FindCoordinatorResponseData r = new FindCoordinatorResponseData();
            r.read(new ByteBufferAccessor(buf.slice()), version);
            FindCoordinatorResponseData.Coordinator c = r.coordinators().get(0);
            return c.errorCode() == Errors.NONE.code() ? c.nodeId() : -1;
        }
    }

    /** One acknowledged record to each partition of {@code topic} in a new transaction, left open. */
    private static List<String> inTransaction(KafkaProducer<String, String> producer, String topic, String prefix)
            throws Exception {
        return TransactionalRecords.oneToEachPartition(producer, topic, PARTITIONS, prefix, Duration.ofSeconds(90));
    }

    private static Map<Integer, Integer> leaders(Admin admin) throws Exception {
        return leaders(admin, TOPIC);
    }

    private static Map<Integer, Integer> leaders(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic);
        Map<Integer, Integer> out = new HashMap<>();
        for (TopicPartitionInfo p : d.partitions()) {
            out.merge(p.leader() == null ? -1 : p.leader().id(), 1, Integer::sum);
        }
        return out;
    }

    private static List<Integer> partitionsOf(Admin admin, int broker) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(TOPIC);
        return d.partitions().stream()
                .filter(p -> p.leader() != null && p.leader().id() == broker)
                .map(TopicPartitionInfo::partition)
                .toList();
    }

    /** Idempotent acks=all records over every partition; returns those acknowledged (each send waits for its ack). */
    private List<String> produce(String prefix, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        List<String> out = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                String v = prefix + "-" + i;
                producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, v))
                        .get(90, TimeUnit.SECONDS);
                out.add(v);
            }
        }
        return out;
    }

    private List<String> consumeAll() {
        return consumeAll(TOPIC, "read_uncommitted");
    }

    private List<String> consumeAll(String topic, String isolation) {
        return TransactionalRecords.readToEnd(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()), topic, PARTITIONS, isolation);
    }

    private static void signal(Process p, String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid()))
                .inheritIO()
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    private static void resume(Process p) throws Exception {
        if (p.isAlive()) {
            signal(p, "CONT");
        }
    }

    /** Produce v9, acks=all, one record to {@code partition}, written to the socket; returns the correlation id. */
    private static int sendProduce(Socket s, int partition, String value) throws Exception {
        short version = 9;
        MemoryRecords records =
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData body = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        body.topicData()
                .add(new ProduceRequestData.TopicProduceData()
                        .setName(TOPIC)
                        .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                .setIndex(partition)
                                .setRecords(records))));
        ByteBuffer frame = RequestFrame.encode(ApiKeys.PRODUCE, version, 77, "zombie-test", body);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.write(frame.array(), 0, frame.limit());
        out.flush();
        return 77;
    }

    private static ProduceResponseData readProduceResponse(Socket s, int correlation) throws Exception {
        short version = 9;
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer buf = ByteBuffer.wrap(frame);
        ResponseHeaderData h =
                new ResponseHeaderData(new ByteBufferAccessor(buf), ApiKeys.PRODUCE.responseHeaderVersion(version));
        assertThat(h.correlationId()).isEqualTo(correlation);
        ProduceResponseData r = new ProduceResponseData();
        r.read(new ByteBufferAccessor(buf.slice()), version);
        return r;
    }
}
