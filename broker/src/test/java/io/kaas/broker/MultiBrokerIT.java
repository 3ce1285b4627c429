package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.etcd.EtcdServer;
import io.kaas.storage.TopicPartition;
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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in this JVM over one data directory, coordinated by a real etcd: Metadata names every
 * broker and each partition's owner, a broker refuses what it does not own, a clean stop hands its
 * partitions to the others, a second broker with a live id is refused.
 */
@ExtendWith(EtcdServer.Shared.class)
class MultiBrokerIT {
    private static final Duration TTL = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    private final List<KaasBroker> brokers = new ArrayList<>();
    private final String clusterId = "multi-" + UUID.randomUUID();

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    private KaasBroker start(EtcdServer etcd, int id) {
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withBrokerId(id)
                .withClusterId(clusterId)
                .withDefaultPartitions(6);
        ClusterConfig cluster = ClusterConfig.parse("etcd://" + etcd.endpoint())
                .withTimings(TTL, Duration.ofMillis(500), Duration.ofMillis(500));
        KaasBroker b = KaasBroker.create(config, SecurityConfig.none(), cluster);
        brokers.add(b);
        return b.start();
    }

    private static Admin admin(KaasBroker b) {
        // Brokers join and leave under it: re-read the metadata often, as a client of a changing cluster would.
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                b.bootstrapServers(),
                AdminClientConfig.METADATA_MAX_AGE_CONFIG,
                "500"));
    }

    @Test
    void threeBrokersShareTheDirectoryAndHandOnAtAStop(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        KaasBroker b2 = start(etcd, 2);
        try (Admin admin = admin(b0)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                Map<Integer, Integer> perBroker = leadersPerBroker(admin);
                assertThat(perBroker)
                        .containsOnlyKeys(0, 1, 2)
                        .allSatisfy((b, n) -> assertThat(n).isEqualTo(2));
                assertThat(admin.describeCluster().nodes().get().stream().map(Node::id))
                        .containsExactlyInAnyOrder(0, 1, 2);
            });
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                                    .mapToInt(b -> b.engine().taken().size())
                                    .sum()
                            == 6);

            // A broker answers NOT_LEADER_OR_FOLLOWER for a partition another owns.
            int otherPartition = -1;
            for (int i = 0; i < 6; i++) {
                if (leaderOf(admin, i) != 0) {
                    otherPartition = i;
                }
            }
            assertThat(b0.engine().taken()).doesNotContainKey(new TopicPartition("t", otherPartition));
            try (RawKafkaConnection raw = new RawKafkaConnection(b0.boundPort())) {
                ListOffsetsResponseData r = raw.roundTrip(
                        ApiKeys.LIST_OFFSETS,
                        (short) 7,
                        new ListOffsetsRequestData()
                                .setReplicaId(-1)
                                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                        .setName("t")
                                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                                .setPartitionIndex(otherPartition)
                                                .setTimestamp(-1))))));
                assertThat(r.topics().get(0).partitions().get(0).errorCode())
                        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            }

            Set<String> sent = new HashSet<>(produce(b1, "a", 60));
            // A consumer group through another broker: every broker names the same coordinator, which keeps its
            // offsets.
            assertThat(consumeInGroup(b2, "g", 60)).hasSize(60);
            long committed = admin
                    .listConsumerGroupOffsets("g")
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .values()
                    .stream()
                    .mapToLong(o -> o.offset())
                    .sum();
            assertThat(committed).isEqualTo(60);
            b2.stop();
            // Its lease revoked at the stop: its partitions move after the grace period, to the two left.
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(leadersPerBroker(admin))
                            .containsOnlyKeys(0, 1)
                            .allSatisfy((b, n) -> assertThat(n).isEqualTo(3)));
            sent.addAll(produce(b0, "b", 60));
            assertThat(consumeAll(b0, 6)).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void aBrokerThatJoinsTakesItsShareFromLiveBrokersAndNothingIsLost(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        start(etcd, 1);
        try (Admin admin = admin(b0)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(leadersPerBroker(admin))
                            .containsOnlyKeys(0, 1)
                            .allSatisfy((b, n) -> assertThat(n).isEqualTo(3)));
            Set<String> sent = new HashSet<>(produce(b0, "a", 60));
            KaasBroker b2 = start(etcd, 2);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(leadersPerBroker(admin))
                            .containsOnlyKeys(0, 1, 2)
                            .allSatisfy((b, n) -> assertThat(n).isEqualTo(2)));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> b2.engine().taken().size() == 2);
            sent.addAll(produce(b0, "b", 60));
            assertThat(consumeAll(b0, 6)).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void theNextGroupCoordinatorServesTheOffsetsItsPredecessorCommitted(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        try (Admin admin = admin(b0)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            b0.engine().taken().size() + b1.engine().taken().size() == 6);
        }
        produce(b1, "a", 24);
        assertThat(consumeInGroup(b1, "g", 24)).hasSize(24); // committed through broker 0, the coordinator
        b0.stop();
        try (Admin admin = admin(b1)) {
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(admin
                                    .listConsumerGroupOffsets("g")
                                    .partitionsToOffsetAndMetadata()
                                    .get(10, TimeUnit.SECONDS)
                                    .values()
                                    .stream()
                                    .mapToLong(o -> o.offset())
                                    .sum())
                            .isEqualTo(24));
        }
    }

    /**
     * A broker whose group slot moves to a broker that joined answers NOT_COORDINATOR to a client still connected to
     * it, and writes no more offsets; the consumer finds the new coordinator, which re-read the offsets.
     */
    @Test
    void anExGroupCoordinatorAnswersNotCoordinatorAndItsSuccessorKeepsTheOffsets(EtcdServer etcd) throws Exception {
        KaasBroker b1 = start(etcd, 1);
        try (Admin admin = admin(b1)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> b1.engine().taken().size() == 6);
        }
        // A group of the last slot: a joining broker takes its share of slots from the highest down.
        String g = groupOfSlot(GroupCoordinator.SLOTS - 1);
        produce(b1, "a", 24);
        assertThat(consumeInGroup(b1, g, 24)).hasSize(24); // broker 1 alone coordinates
        KaasBroker b0 = start(etcd, 0);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(heartbeat(b1, g)).isEqualTo(Errors.NOT_COORDINATOR);
            assertThat(heartbeat(b0, g)).isEqualTo(Errors.UNKNOWN_MEMBER_ID); // broker 0 coordinates: no such member
        });
        try (Admin admin = admin(b1)) {
            assertThat(admin
                            .listConsumerGroupOffsets(g)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS)
                            .values()
                            .stream()
                            .mapToLong(o -> o.offset())
                            .sum())
                    .isEqualTo(24);
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> b0.engine().taken().size() + b1.engine().taken().size() == 6);
        List<String> next = produce(b1, "b", 12);
        assertThat(consumeInGroup(b1, g, 12))
                .as("from the offsets committed through broker 1")
                .containsExactlyInAnyOrderElementsOf(next);
    }

    private static String groupOfSlot(int slot) {
        for (int i = 0; ; i++) {
            if (GroupCoordinator.slotFor("g-" + i) == slot) {
                return "g-" + i;
            }
        }
    }

    /** The broker FindCoordinator (v4, batched) names through {@code via} for {@code key}: -1 when none. */
    private static int coordinatorOf(KaasBroker via, FindCoordinatorRequest.CoordinatorType type, String key)
            throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(via.boundPort())) {
            FindCoordinatorResponseData r = raw.roundTrip(
                    ApiKeys.FIND_COORDINATOR,
                    (short) 4,
                    new FindCoordinatorRequestData().setKeyType(type.id()).setCoordinatorKeys(List.of(key)));
            FindCoordinatorResponseData.Coordinator c = r.coordinators().get(0);
            return c.errorCode() == Errors.NONE.code() ? c.nodeId() : -1;
        }
    }

    /**
     * Group and transaction coordinators are placed by the assignment's slots (Apache's {@code __consumer_offsets} and
     * {@code __transaction_state} partitions), spread over the brokers, every broker naming the same one. Then
     * consume-transform-produce with real kafka-clients, its transaction coordinator and its group coordinator two
     * different brokers: an aborted transaction commits no offset, and every input record's output is read once and
     * the group's offsets end at the input's end, committed by the markers the transaction coordinator sent the group's.
     */
    @Test
    void coordinatorsAreSpreadBySlotAndATransactionCommitsAnotherBrokersGroupOffsetsOnce(EtcdServer etcd)
            throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        KaasBroker b2 = start(etcd, 2);
        try (Admin admin = admin(b0)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1), new NewTopic("out", 3, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                                    .mapToInt(b -> b.engine().taken().size())
                                    .sum()
                            == 9);
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Set<Integer> groupCoordinators = new HashSet<>();
            Set<Integer> txnCoordinators = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                int g = coordinatorOf(b0, FindCoordinatorRequest.CoordinatorType.GROUP, "grp-" + i);
                assertThat(coordinatorOf(b2, FindCoordinatorRequest.CoordinatorType.GROUP, "grp-" + i))
                        .as("every broker names it")
                        .isEqualTo(g);
                groupCoordinators.add(g);
                txnCoordinators.add(coordinatorOf(b1, FindCoordinatorRequest.CoordinatorType.TRANSACTION, "tx-" + i));
            }
            assertThat(groupCoordinators).containsExactlyInAnyOrder(0, 1, 2);
            assertThat(txnCoordinators).containsExactlyInAnyOrder(0, 1, 2);
        });
        String group = null;
        String txnId = null;
        for (int i = 0; group == null; i++) {
            int g = coordinatorOf(b0, FindCoordinatorRequest.CoordinatorType.GROUP, "eos-group-" + i);
            int t = coordinatorOf(b0, FindCoordinatorRequest.CoordinatorType.TRANSACTION, "eos-tx-" + i);
            if (g >= 0 && t >= 0 && g != t) {
                group = "eos-group-" + i;
                txnId = "eos-tx-" + i;
            }
        }
        List<String> input = produce(b1, "in-", 60);
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, b1.bootstrapServers());
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7");
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b2.bootstrapServers());
        pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        Set<String> processed = new HashSet<>();
        try (KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer());
                KafkaProducer<String, String> producer =
                        new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
                Admin admin = admin(b0)) {
            producer.initTransactions();
            consumer.subscribe(List.of("t"));
            boolean abortedOnce = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (processed.size() < input.size()) {
                assertThat(System.nanoTime()).as("all input processed in time").isLessThan(deadline);
                var records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> next =
                        new HashMap<>();
                List<String> batch = new ArrayList<>();
                for (ConsumerRecord<String, String> r : records) {
                    producer.send(new ProducerRecord<>("out", r.value().toUpperCase()));
                    batch.add(r.value());
                    next.put(
                            new org.apache.kafka.common.TopicPartition(r.topic(), r.partition()),
                            new org.apache.kafka.clients.consumer.OffsetAndMetadata(r.offset() + 1));
                }
                producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
                if (!abortedOnce) {
                    abortedOnce = true;
                    producer.abortTransaction();
                    assertThat(admin.listConsumerGroupOffsets(group)
                                    .partitionsToOffsetAndMetadata()
                                    .get(30, TimeUnit.SECONDS))
                            .as("an aborted transaction commits no offset")
                            .isEmpty();
                    for (org.apache.kafka.common.TopicPartition tp : next.keySet()) {
                        consumer.seek(tp, records.records(tp).get(0).offset());
                    }
                    continue;
                }
                producer.commitTransaction();
                processed.addAll(batch);
            }
            assertThat(admin
                            .listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS)
                            .values()
                            .stream()
                            .mapToLong(o -> o.offset())
                            .sum())
                    .as("the group's offsets: the input's end")
                    .isEqualTo(60);
        }
        assertThat(consumeAll(b0, "out", 3, "read_committed"))
                .as("each input record transformed once")
                .containsExactlyInAnyOrderElementsOf(
                        input.stream().map(String::toUpperCase).toList());
    }

    private static Errors heartbeat(KaasBroker b, String group) throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.boundPort())) {
            org.apache.kafka.common.message.HeartbeatResponseData r = raw.roundTrip(
                    ApiKeys.HEARTBEAT,
                    (short) 4,
                    new org.apache.kafka.common.message.HeartbeatRequestData()
                            .setGroupId(group)
                            .setMemberId("m")
                            .setGenerationId(1));
            return Errors.forCode(r.errorCode());
        }
    }

    /**
     * A transaction over partitions that three brokers lead, its coordinator one of them: the markers reach every
     * leader (WriteTxnMarkers), a partition leader that is not the coordinator asks it (AddPartitionsToTxn). Then the
     * coordinator stops with a transaction open: the slot's next holder re-reads the state and the producer commits it.
     */
    @Test
    void transactionsOverSeveralBrokersCommitAbortAndSurviveTheCoordinatorMoving(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        KaasBroker b2 = start(etcd, 2);
        try (Admin admin = admin(b1)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // ignoreExceptions: a broker lists a topic another created at its next reconcile; until then UNKNOWN_TOPIC.
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(leadersPerBroker(admin)).containsOnlyKeys(0, 1, 2));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                                    .mapToInt(b -> b.engine().taken().size())
                                    .sum()
                            == 6);
        }
        String txnId = "tx-" + UUID.randomUUID();
        int coordinator = await().atMost(Duration.ofSeconds(20))
                .until(() -> coordinatorOf(b1, FindCoordinatorRequest.CoordinatorType.TRANSACTION, txnId), c -> c >= 0);
        KaasBroker survivor = coordinator == 1 ? b2 : b1;
        Properties p = new Properties();
        p.put(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                b0.bootstrapServers() + "," + b1.bootstrapServers() + "," + b2.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        List<String> committed = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed.addAll(inTransaction(producer, "c1-"));
            producer.commitTransaction();
            aborted.addAll(inTransaction(producer, "a1-"));
            producer.abortTransaction();
            // Open, with a record on every partition and a group's offset staged, when the transaction's coordinator
            // stops.
            committed.addAll(inTransaction(producer, "c2-"));
            producer.sendOffsetsToTransaction(
                    Map.of(
                            new org.apache.kafka.common.TopicPartition("t", 0),
                            new org.apache.kafka.clients.consumer.OffsetAndMetadata(42)),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("txg"));
            brokers.get(coordinator).stop();
            producer.commitTransaction(); // re-finds the coordinator: the slot's next holder, which re-read the
            // transaction
            committed.addAll(inTransaction(producer, "c3-"));
            producer.commitTransaction();
        }
        assertThat(consumeAll(survivor, 6, "read_committed")).containsExactlyInAnyOrderElementsOf(committed);
        try (Admin admin = admin(survivor)) {
            assertThat(admin.listConsumerGroupOffsets("txg")
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS)
                            .get(new org.apache.kafka.common.TopicPartition("t", 0))
                            .offset())
                    .as("the offset staged in the transaction, committed by the next coordinator")
                    .isEqualTo(42);
        }
        List<String> everything = consumeAll(survivor, 6, "read_uncommitted");
        assertThat(everything).containsAll(aborted).hasSize(committed.size() + aborted.size());
    }

    /** One record to each of topic t's 6 partitions in the open transaction, each acknowledged. */
    private static List<String> inTransaction(KafkaProducer<String, String> producer, String prefix) throws Exception {
        return TransactionalRecords.oneToEachPartition(producer, "t", 6, prefix, Duration.ofSeconds(30));
    }

    /**
     * A topic deleted through one broker is closed by every owner before its directory goes, and no owner
     * recreates it: the same name created again with fewer partitions has only those, and serves them.
     */
    @Test
    void aTopicDeletedThroughOneBrokerIsClosedEverywhereAndNotRecreated(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        KaasBroker b2 = start(etcd, 2);
        try (Admin admin = admin(b1)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                                    .mapToInt(b -> b.engine().taken().size())
                                    .sum()
                            == 6);
            assertThat(b0.engine().taken()).isNotEmpty();
            assertThat(b2.engine().taken()).isNotEmpty();
            produce(b0, "a", 12);

            admin.deleteTopics(List.of("t")).all().get(30, TimeUnit.SECONDS);
            assertThat(dir.resolve("t")).as("removed once every owner let go").doesNotExist();
            for (KaasBroker b : brokers) {
                assertThat(b.engine().taken()).isEmpty();
            }
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
                for (KaasBroker b : brokers) {
                    assertThat(b.engine().topic("t")).isEmpty();
                }
                assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain("t");
            });

            admin.createTopics(List.of(new NewTopic("t", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                                    .mapToInt(b -> b.engine().taken().size())
                                    .sum()
                            == 3);
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            b2.bootstrapServers(),
                            ProducerConfig.ACKS_CONFIG,
                            "all"),
                    new StringSerializer(),
                    new StringSerializer())) {
                for (int i = 0; i < 9; i++) {
                    producer.send(new ProducerRecord<>("t", i % 3, null, "b" + i))
                            .get(30, TimeUnit.SECONDS);
                    sent.add("b" + i);
                }
            }
            assertThat(consumeAll(b2, 3)).containsExactlyInAnyOrderElementsOf(sent);
            try (var partitions = java.nio.file.Files.list(dir.resolve("t"))) {
                assertThat(partitions
                                .filter(java.nio.file.Files::isDirectory)
                                .map(p -> p.getFileName().toString()))
                        .as("no old owner recreated a partition of the deleted topic")
                        .containsExactlyInAnyOrder("0", "1", "2");
            }
        }
    }

    @Test
    void aBrokerFencesItselfWhileEtcdIsGoneAndResumesWhenItReturns(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        try (Admin admin = admin(b0)) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> b0.engine().taken().size() == 6);
        }
        List<String> sent = new ArrayList<>(produce(b0, "a", 12));
        etcd.stop();
        try {
            long stoppedAt = System.nanoTime();
            // Renewals fail: acknowledging stops before the lease could have expired (TTL 2 s, margin 0.5 s).
            await().atMost(TTL)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !b0.clusterMember().mayAcknowledge());
            assertThat(System.nanoTime() - stoppedAt).isLessThan(TTL.toNanos());
        } finally {
            etcd.restart();
        }
        // etcd restored its leases with a fresh TTL: the next renewal succeeds and the broker acknowledges again.
        await().atMost(Duration.ofSeconds(30)).until(() -> b0.clusterMember().mayAcknowledge());
        sent.addAll(produce(b0, "b", 12));
        assertThat(consumeAll(b0, 6)).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void aSecondBrokerWithALiveIdIsRefused(EtcdServer etcd) {
        start(etcd, 5);
        assertThatThrownBy(() -> start(etcd, 5))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("broker id 5 is already registered");
    }

    private static int leaderOf(Admin admin, int partition) throws Exception {
        TopicDescription d =
                admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
        Node leader = d.partitions().get(partition).leader();
        return leader == null ? -1 : leader.id();
    }

    private static Map<Integer, Integer> leadersPerBroker(Admin admin) throws Exception {
        TopicDescription d =
                admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
        Map<Integer, Integer> out = new HashMap<>();
        for (TopicPartitionInfo p : d.partitions()) {
            out.merge(p.leader() == null ? -1 : p.leader().id(), 1, Integer::sum);
        }
        return out;
    }

    /** Idempotent acks=all records to every partition, through {@code via}; returns what was acknowledged. */
    static List<String> produce(KaasBroker via, String prefix, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        List<String> acked = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                String v = prefix + i;
                producer.send(new ProducerRecord<>("t", i % 6, null, v)).get(30, TimeUnit.SECONDS);
                acked.add(v);
            }
        }
        return acked;
    }

    /** {@code n} records of topic t read by a member of group {@code group} through {@code via}, committed. */
    static List<String> consumeInGroup(KaasBroker via, String group, int n) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of("t"));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
                return out.size() >= n;
            });
            c.commitSync(Duration.ofSeconds(30));
        }
        return out;
    }

    /** Every record of topic t's partitions, read through {@code via} (clients follow the leaders). */
    static List<String> consumeAll(KaasBroker via, int partitions) {
        return consumeAll(via, partitions, "read_uncommitted");
    }

    /** Every record of topic t's partitions up to the end (read_committed: the last stable offset) a consumer sees. */
    static List<String> consumeAll(KaasBroker via, int partitions, String isolation) {
        return consumeAll(via, "t", partitions, isolation);
    }

    /** Every record of {@code topic}'s partitions up to the end (read_committed: the last stable offset) a consumer sees. */
    static List<String> consumeAll(KaasBroker via, String topic, int partitions, String isolation) {
        return TransactionalRecords.readToEnd(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrapServers()), topic, partitions, isolation);
    }
}
