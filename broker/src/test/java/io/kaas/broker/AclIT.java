package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.security.AclStore;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.layout.ClusterDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs end to end on one SASL broker running Apache's StandardAuthorizer ({@code super.users=User:admin}):
 * Apache's kafka-acls adds, lists and removes them, and real clients (producer, consumer group,
 * transactions, Admin) are allowed or refused with Apache's errors; ACLs live in
 * {@code __cluster/acls.json} across a restart.
 */
class AclIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        Path data = dir.resolve("data");
        ScramCredentialStore users = ScramCredentialStore.inDataDir(data);
        for (String user : List.of("admin", "alice", "bob", "carol")) {
            users.upsert(
                    user,
                    ScramMechanism.SCRAM_SHA_256,
                    ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_256, password(user), 4096));
        }
        b = TestBroker.secured(
                data,
                Map.of(
                        "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256",
                        "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                        "super.users", "User:admin"),
                "SASL_PLAINTEXT://127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
    }

    private static String password(String user) {
        return "pw-" + user + "-1";
    }

    static Map<String, Object> as(String user) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "SCRAM-SHA-256");
        p.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password(user) + "\";");
        return p;
    }

    private ExternalProcess kafkaAcls(String... args) throws Exception {
        Path config = dir.resolve("admin.properties");
        StringBuilder text = new StringBuilder();
        as("admin").forEach((k, v) -> {
            if (!k.equals(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
                text.append(k)
                        .append('=')
                        .append(v.toString().replace("\"", "\\\""))
                        .append('\n');
            }
        });
        Files.writeString(config, text.toString());
        List<String> all = new ArrayList<>(
                List.of("--bootstrap-server", b.bootstrap("SASL_PLAINTEXT"), "--command-config", config.toString()));
        all.addAll(List.of(args));
        ExternalProcess p =
                ExternalProcess.java(dir, null, "org.apache.kafka.tools.AclCommand", all.toArray(String[]::new));
        assertThat(p.exitCode()).as("kafka-acls %s%n%s", all, p).isZero();
        return p;
    }

    private static void produce(String user, String topic, int count) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = b.producer(as(user))) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get();
            }
        }
    }

    @Test
    void kafkaAclsAddListRemoveAndClientsFollowThem() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("team-a-orders", 1, (short) 1)))
                    .all()
                    .get();
        }
        // Nothing granted yet (allow.everyone.if.no.acl.found defaults to false): refused at Metadata
        // (TOPIC_) or at InitProducerId (CLUSTER_AUTHORIZATION_FAILED: no WRITE anywhere, KIP-679), whichever answers
        // first.
        assertThatThrownBy(() -> produce("alice", "team-a-orders", 1))
                .hasRootCauseInstanceOf(AuthorizationException.class);

        kafkaAcls(
                "--add",
                "--allow-principal",
                "User:alice",
                "--producer",
                "--topic",
                "team-a-",
                "--resource-pattern-type",
                "prefixed");
        kafkaAcls(
                "--add",
                "--allow-principal",
                "User:alice",
                "--consumer",
                "--topic",
                "team-a-",
                "--resource-pattern-type",
                "prefixed",
                "--group",
                "team-a-readers");
        String listed = kafkaAcls("--list", "--topic", "team-a-", "--resource-pattern-type", "prefixed")
                .out();
        assertThat(listed)
                .contains("User:alice")
                .contains("WRITE")
                .contains("READ")
                .contains("PREFIXED");

        produce("alice", "team-a-orders", 5); // idempotent: WRITE on some topic is enough for InitProducerId (KIP-679)
        Map<String, Object> consumer = new HashMap<>(as("alice"));
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "team-a-readers");
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(consumer)) {
            c.subscribe(List.of("team-a-orders"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < 5 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    seen.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            c.commitSync();
        }
        assertThat(seen).containsExactly("v0", "v1", "v2", "v3", "v4");

        // bob may write elsewhere only: refused on this topic, which is not even listed for him.
        kafkaAcls("--add", "--allow-principal", "User:bob", "--operation", "Write", "--topic", "bob-only");
        assertThatThrownBy(() -> produce("bob", "team-a-orders", 1))
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
        try (Admin bob = b.admin(as("bob"));
                Admin alice = b.admin(as("alice"))) {
            assertThat(bob.listTopics().names().get()).doesNotContain("team-a-orders");
            assertThat(alice.listTopics().names().get()).contains("team-a-orders");
            assertThatThrownBy(() -> bob.listConsumerGroupOffsets("team-a-readers")
                            .partitionsToOffsetAndMetadata()
                            .get())
                    .hasCauseInstanceOf(GroupAuthorizationException.class);
            assertThatThrownBy(() ->
                            bob.deleteTopics(List.of("team-a-orders")).all().get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }

        kafkaAcls(
                "--remove",
                "--force",
                "--allow-principal",
                "User:alice",
                "--producer",
                "--topic",
                "team-a-",
                "--resource-pattern-type",
                "prefixed");
        assertThatThrownBy(() -> produce("alice", "team-a-orders", 1))
                .hasRootCauseInstanceOf(AuthorizationException.class);
        assertThat(kafkaAcls("--list", "--topic", "team-a-", "--resource-pattern-type", "prefixed")
                        .out())
                .contains("READ")
                .doesNotContain("WRITE");
    }

    @Test
    void onlyWhoMayAlterTheClusterManagesAclsAndBadOnesAreRefusedAsApache() throws Exception {
        AclBinding readLogs = new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, "logs", PatternType.LITERAL),
                new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW));
        try (Admin bob = b.admin(as("bob"));
                Admin admin = b.admin(as("admin"))) {
            assertThatThrownBy(() -> bob.createAcls(List.of(readLogs)).all().get())
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
            assertThatThrownBy(() ->
                            bob.describeAcls(AclBindingFilter.ANY).values().get())
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
            AclBinding badCluster = new AclBinding(
                    new ResourcePattern(ResourceType.CLUSTER, "not-kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.ALTER, AclPermissionType.ALLOW));
            assertThatThrownBy(() -> admin.createAcls(List.of(badCluster)).all().get())
                    .hasCauseInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("kafka-cluster");

            admin.createAcls(List.of(readLogs)).all().get();
            admin.createAcls(List.of(readLogs)).all().get(); // again: success, one copy (Apache)
            AclBindingFilter bobs = new AclBindingFilter(
                    readLogs.pattern().toFilter(),
                    new org.apache.kafka.common.acl.AccessControlEntryFilter(
                            "User:bob", null, AclOperation.ANY, AclPermissionType.ANY));
            assertThat(admin.describeAcls(bobs).values().get()).containsExactly(readLogs);
            assertThat(AclStore.inDataDir(b.dataDir()).load().values())
                    .extracting(a -> a.toBinding())
                    .contains(readLogs);

            // ALTER on the cluster lets a non-super user manage ACLs (Apache's rule, not super.users only).
            AclBinding bobAlters = new AclBinding(
                    new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.ALTER, AclPermissionType.ALLOW));
            admin.createAcls(List.of(bobAlters)).all().get();
            AclBinding writeLogs = new AclBinding(
                    readLogs.pattern(),
                    new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
            bob.createAcls(List.of(writeLogs)).all().get();
            assertThat(admin.deleteAcls(List.of(bobs)).all().get()).containsExactlyInAnyOrder(readLogs, writeLogs);
            admin.deleteAcls(List.of(bobAlters.toFilter())).all().get();
            assertThatThrownBy(() -> bob.createAcls(List.of(writeLogs)).all().get())
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    /** Apache's ControllerApis: ALTER on the cluster to reassign partitions, DESCRIBE to list reassignments. */
    @Test
    void partitionReassignmentsNeedAlterOrDescribeOnTheCluster() throws Exception {
        TopicPartition tp = new TopicPartition("moves", 0);
        try (Admin carol = b.admin(as("carol"));
                Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("moves", 1, (short) 1)))
                    .all()
                    .get();
            java.util.function.Supplier<org.apache.kafka.common.KafkaFuture<Void>> move =
                    () -> carol.alterPartitionReassignments(Map.of(
                                    tp,
                                    java.util.Optional.of(
                                            new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(0)))))
                            .all();
            assertThatThrownBy(() -> move.get().get()).hasCauseInstanceOf(ClusterAuthorizationException.class);
            assertThatThrownBy(() ->
                            carol.listPartitionReassignments().reassignments().get())
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
            admin.alterPartitionReassignments(Map.of(
                            tp,
                            java.util.Optional.of(
                                    new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(0)))))
                    .all()
                    .get();

            AclBinding describe = new AclBinding(
                    new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:carol", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW));
            admin.createAcls(List.of(describe)).all().get();
            assertThat(carol.listPartitionReassignments().reassignments().get()).isEmpty();
            assertThatThrownBy(() -> move.get().get()).hasCauseInstanceOf(ClusterAuthorizationException.class);
            AclBinding alter = new AclBinding(
                    describe.pattern(),
                    new AccessControlEntry("User:carol", "*", AclOperation.ALTER, AclPermissionType.ALLOW));
            admin.createAcls(List.of(alter)).all().get();
            move.get().get();
            admin.deleteAcls(List.of(describe.toFilter(), alter.toFilter()))
                    .all()
                    .get();
        }
    }

    @Test
    void transactionalIdsAndIdempotenceNeedTheirOwnAcls() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("txn-out", 1, (short) 1)))
                    .all()
                    .get();
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "txn-out", PatternType.LITERAL),
                            new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
        Map<String, Object> txn = new HashMap<>(as("bob"));
        txn.put("transactional.id", "bob-txn");
        try (KafkaProducer<byte[], byte[]> p = b.producer(txn)) {
            assertThatThrownBy(p::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
        try (Admin admin = b.admin(as("admin"))) {
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "bob-", PatternType.PREFIXED),
                            new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
        try (KafkaProducer<byte[], byte[]> p = b.producer(txn)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("txn-out", "x".getBytes(StandardCharsets.UTF_8)))
                    .get();
            p.commitTransaction();
        }
    }

    @Test
    void aKip848ConsumerIsRefusedTopicsItMayNotDescribe() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("hidden", 1, (short) 1)))
                    .all()
                    .get();
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.GROUP, "kip848", PatternType.LITERAL),
                            new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
        Map<String, Object> consumer = new HashMap<>(as("bob"));
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "kip848");
        consumer.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(consumer)) {
            c.subscribe(List.of("hidden"));
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 100; i++) {
                            c.poll(Duration.ofMillis(200));
                        }
                    })
                    .isInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void describeTransactionsAndConsumerGroupDescribeHideTopicsThePrincipalMayNotDescribe() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(
                            new NewTopic("audit-shown", 1, (short) 1), new NewTopic("audit-secret", 1, (short) 1)))
                    .all()
                    .get();
            admin.createAcls(List.of(
                            new AclBinding(
                                    new ResourcePattern(
                                            ResourceType.TRANSACTIONAL_ID, "audit-txn", PatternType.LITERAL),
                                    new AccessControlEntry(
                                            "User:bob", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW)),
                            new AclBinding(
                                    new ResourcePattern(ResourceType.TOPIC, "audit-shown", PatternType.LITERAL),
                                    new AccessControlEntry(
                                            "User:bob", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW)),
                            new AclBinding(
                                    new ResourcePattern(ResourceType.GROUP, "audit-", PatternType.PREFIXED),
                                    new AccessControlEntry(
                                            "User:bob", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
        Map<String, Object> txn = new HashMap<>(as("admin"));
        txn.put("transactional.id", "audit-txn");
        try (KafkaProducer<byte[], byte[]> p = b.producer(txn);
                Admin admin = b.admin(as("admin"));
                Admin bob = b.admin(as("bob"))) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("audit-shown", "x".getBytes(StandardCharsets.UTF_8)))
                    .get();
            p.send(new ProducerRecord<>("audit-secret", "x".getBytes(StandardCharsets.UTF_8)))
                    .get();
            // Open: the coordinator holds both partitions. Apache shows bob only the topic he may describe.
            assertThat(admin.describeTransactions(List.of("audit-txn"))
                            .all()
                            .get()
                            .get("audit-txn")
                            .topicPartitions())
                    .containsExactlyInAnyOrder(
                            new TopicPartition("audit-shown", 0), new TopicPartition("audit-secret", 0));
            assertThat(bob.describeTransactions(List.of("audit-txn"))
                            .all()
                            .get()
                            .get("audit-txn")
                            .topicPartitions())
                    .containsExactly(new TopicPartition("audit-shown", 0));
            p.abortTransaction();
        }

        Map<String, Object> secret = new HashMap<>(as("admin"));
        secret.put(ConsumerConfig.GROUP_ID_CONFIG, "audit-secret-group");
        secret.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        Map<String, Object> shown = new HashMap<>(secret);
        shown.put(ConsumerConfig.GROUP_ID_CONFIG, "audit-shown-group");
        try (KafkaConsumer<byte[], byte[]> s1 = b.consumer(secret);
                KafkaConsumer<byte[], byte[]> s2 = b.consumer(shown);
                Admin bob = b.admin(as("bob"))) {
            s1.subscribe(List.of("audit-secret"));
            s2.subscribe(List.of("audit-shown"));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                s1.poll(Duration.ofMillis(100));
                s2.poll(Duration.ofMillis(100));
                return !s1.assignment().isEmpty() && !s2.assignment().isEmpty();
            });
            // Apache 4.x: a group assigned a topic bob may not describe is refused as a whole, not shown without it.
            assertThatThrownBy(() -> bob.describeConsumerGroups(List.of("audit-secret-group"))
                            .all()
                            .get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThat(bob.describeConsumerGroups(List.of("audit-shown-group"))
                            .all()
                            .get()
                            .get("audit-shown-group")
                            .members())
                    .hasSize(1);
        }
    }

    @Test
    void authorizedOperationsAreReportedAsApache() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("ops-topic", 1, (short) 1)))
                    .all()
                    .get();
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "ops-", PatternType.PREFIXED),
                            new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                    .all()
                    .get();
            assertThat(admin.describeCluster(new org.apache.kafka.clients.admin.DescribeClusterOptions()
                                    .includeAuthorizedOperations(true))
                            .authorizedOperations()
                            .get())
                    .contains(AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.IDEMPOTENT_WRITE);
        }
        try (Admin bob = b.admin(as("bob"))) {
            // WRITE implies DESCRIBE (Apache's implied operations); nothing else is granted.
            assertThat(bob.describeTopics(
                                    List.of("ops-topic"),
                                    new org.apache.kafka.clients.admin.DescribeTopicsOptions()
                                            .includeAuthorizedOperations(true))
                            .allTopicNames()
                            .get()
                            .get("ops-topic")
                            .authorizedOperations())
                    .containsExactlyInAnyOrder(AclOperation.WRITE, AclOperation.DESCRIBE);
            assertThat(bob.describeCluster(new org.apache.kafka.clients.admin.DescribeClusterOptions()
                                    .includeAuthorizedOperations(true))
                            .authorizedOperations()
                            .get())
                    .isEmpty();
        }
    }

    @Test
    void aclsOutliveARestartInAclsJson() throws Exception {
        AclBinding deny = new AclBinding(
                new ResourcePattern(ResourceType.GROUP, "restart-", PatternType.PREFIXED),
                new AccessControlEntry("User:alice", "10.0.0.1", AclOperation.READ, AclPermissionType.DENY));
        try (Admin admin = b.admin(as("admin"))) {
            admin.createAcls(List.of(deny)).all().get();
        }
        assertThat(Files.readString(ClusterDir.acls(ClusterDir.of(b.dataDir()))))
                .contains("restart-")
                .contains("DENY");
        b.restart();
        try (Admin admin = b.admin(as("admin"))) {
            assertThat(admin.describeAcls(deny.toFilter()).values().get()).containsExactly(deny);
        }
    }

    @Test
    void aclsChangedInTheFileByKaasAclOrAnotherBrokerAreInForceWithoutARestart() throws Exception {
        try (Admin admin = b.admin(as("admin"))) {
            admin.createTopics(List.of(new NewTopic("offline-acl", 1, (short) 1)))
                    .all()
                    .get();
        }
        Set<String> visible;
        try (Admin bob = b.admin(as("bob"))) {
            visible = bob.listTopics().names().get();
        }
        assertThat(visible).doesNotContain("offline-acl");
        // What kaas acl add does (another process, the same file): the broker applies it within about a second.
        AclBinding describe = new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, "offline-acl", PatternType.LITERAL),
                new AccessControlEntry("User:bob", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW));
        assertThat(AclStore.inDataDir(b.dataDir()).create(List.of(describe)).added())
                .hasSize(1);
        try (Admin bob = b.admin(as("bob"))) {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> bob.listTopics().names().get().contains("offline-acl"));
        }
        try (Admin admin = b.admin(as("admin"))) {
            assertThat(admin.describeAcls(describe.toFilter()).values().get()).containsExactly(describe);
        }
        assertThat(AclStore.inDataDir(b.dataDir())
                        .delete(List.of(describe.toFilter()))
                        .removed())
                .hasSize(1);
        try (Admin bob = b.admin(as("bob"))) {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> !bob.listTopics().names().get().contains("offline-acl"));
        }
        try (Admin admin = b.admin(as("admin"))) {
            assertThat(admin.describeAcls(describe.toFilter()).values().get()).isEmpty();
        }
    }

    @Test
    void withoutAnAuthorizerTheAclApisAreSecurityDisabled(@TempDir Path other) throws Exception {
        try (TestBroker plain = new TestBroker(other.resolve("data"));
                Admin admin = plain.admin()) {
            assertThatThrownBy(() ->
                            admin.describeAcls(AclBindingFilter.ANY).values().get())
                    .hasCauseInstanceOf(SecurityDisabledException.class);
            AclBinding any = new AclBinding(
                    new ResourcePattern(ResourceType.TOPIC, "t", PatternType.LITERAL),
                    new AccessControlEntry("User:x", "*", AclOperation.READ, AclPermissionType.ALLOW));
            assertThatThrownBy(() -> admin.createAcls(List.of(any)).all().get())
                    .hasCauseInstanceOf(SecurityDisabledException.class);
        }
    }
}
