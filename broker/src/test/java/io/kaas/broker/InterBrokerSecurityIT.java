package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.cluster.etcd.EtcdServer;
import io.kaas.security.ScramCredentialStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokers over one directory whose requests to each other are secured as Apache's: three whose only listener is
 * SASL_SSL (SCRAM-SHA-512), as an Apache cluster with {@code inter.broker.listener.name=SASL_SSL}: the transaction
 * coordinator's markers (WriteTxnMarkers) and the partition leaders' AddPartitionsToTxn reach the other brokers over
 * TLS, logged in as the broker's own user from {@code listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config}, and
 * that user is authorized like any other (CLUSTER_ACTION, granted by an ACL; the client is the only super user).
 * Then two with clients on EXTERNAL and the brokers between themselves on INTERNAL: PLAINTEXT, or mutual TLS whose
 * certificates are rotated.
 */
@ExtendWith(EtcdServer.Shared.class)
class InterBrokerSecurityIT {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final String ALICE = "alice-Secret-1";
    private static final String BROKER = "broker-Secret-1";
    private static final List<Endpoint> EXTERNAL_AND_INTERNAL =
            List.of(new Endpoint("EXTERNAL", "127.0.0.1", 0), new Endpoint("INTERNAL", "127.0.0.1", 0));

    @TempDir
    Path dir;
    /** Copies of the TLS stores that a test rotates (not in {@link #dir}, the brokers' data directory). */
    @TempDir
    Path stores;

    private final List<KaasBroker> brokers = new ArrayList<>();
    private final String clusterId = "ibsec-" + UUID.randomUUID();
    private final TlsMaterial tls = TlsMaterial.get();

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    /** A broker whose only listener is SASL_SSL, which it also logs in to the others over. */
    private KaasBroker start(EtcdServer etcd, int id) {
        Map<String, String> keys = new HashMap<>(tls.brokerSsl());
        // The broker is a TLS client of the others too: its truststore must trust their certificate.
        keys.put("ssl.truststore.location", tls.clientTruststore.toString());
        keys.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        keys.put("inter.broker.listener.name", "SASL_SSL");
        keys.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        keys.put(
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" password=\""
                        + BROKER + "\";");
        keys.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        keys.put("super.users", "User:alice");
        return start(etcd, id, keys, List.of(new Endpoint("SASL_SSL", "127.0.0.1", 0)));
    }

    private KaasBroker start(EtcdServer etcd, int id, Map<String, String> keys, List<Endpoint> listeners) {
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withListeners(listeners)
                .withBrokerId(id)
                .withClusterId(clusterId)
                .withDefaultPartitions(6);
        ClusterConfig cluster = ClusterConfig.parse("etcd://" + etcd.endpoint())
                .withTimings(TTL, Duration.ofMillis(500), Duration.ofMillis(500));
        KaasBroker b = KaasBroker.create(config, new SecurityConfig(keys), cluster);
        brokers.add(b);
        return b.start();
    }

    private Map<String, Object> alice(KaasBroker via) {
        Map<String, Object> p = new HashMap<>(tls.clientSsl());
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, via.bootstrapServers());
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        p.put("sasl.mechanism", "SCRAM-SHA-512");
        p.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\""
                        + ALICE + "\";");
        p.put(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, "500");
        return p;
    }

    @Test
    void aTransactionOverPartitionsOfThreeSaslSslBrokersCommitsAndIsReadCommitted(EtcdServer etcd) throws Exception {
        ScramCredentialStore credentials = ScramCredentialStore.inDataDir(dir);
        credentials.upsert(
                "alice",
                ScramMechanism.SCRAM_SHA_512,
                ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, ALICE, 4096));
        credentials.upsert(
                "broker",
                ScramMechanism.SCRAM_SHA_512,
                ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, BROKER, 4096));
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        start(etcd, 2);
        try (Admin admin = Admin.create(alice(b1))) {
            AclBinding brokersMayAct = new AclBinding(
                    new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:broker", "*", AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW));
            admin.createAcls(List.of(brokersMayAct)).all().get(30, TimeUnit.SECONDS);
            awaitInForceEverywhere(brokersMayAct);
            createTopicLedByEveryBroker(admin);
        }
        Map<String, Object> p = alice(b1);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID());
        List<String> committed = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed.addAll(inTransaction(producer, "c1-"));
            producer.commitTransaction();
            aborted.addAll(inTransaction(producer, "a1-"));
            producer.abortTransaction();
            committed.addAll(inTransaction(producer, "c2-"));
            producer.commitTransaction();
        }
        // Markers move the last stable offset: every committed record becomes visible, no aborted one.
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() ->
                        assertThat(consumeAll(b0, "read_committed")).containsExactlyInAnyOrderElementsOf(committed));
        assertThat(consumeAll(b0, "read_uncommitted")).containsAll(aborted).hasSize(committed.size() + aborted.size());
    }

    /**
     * Clients on an EXTERNAL SASL_SSL listener, brokers between themselves on INTERNAL (PLAINTEXT, registered second):
     * markers reach the other broker's INTERNAL endpoint (its first, EXTERNAL, would refuse plaintext), and Metadata
     * names each broker by the listener the client came in on, as Apache's.
     */
    @Test
    void brokersUseTheNamedListenerAndClientsAreToldTheAddressesOfTheirOwn(EtcdServer etcd) throws Exception {
        Map<String, String> keys = clientsOnExternal("PLAINTEXT");
        KaasBroker b0 = start(etcd, 0, keys, EXTERNAL_AND_INTERNAL);
        KaasBroker b1 = start(etcd, 1, keys, EXTERNAL_AND_INTERNAL);
        Map<String, Object> internal =
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + b1.boundPort("INTERNAL"));
        try (Admin external = Admin.create(alice(b0));
                Admin plain = Admin.create(internal)) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(external.describeCluster().nodes().get().stream().map(n -> n.port()))
                        .containsExactlyInAnyOrder(b0.boundPort("EXTERNAL"), b1.boundPort("EXTERNAL"));
                assertThat(plain.describeCluster().nodes().get().stream().map(n -> n.port()))
                        .containsExactlyInAnyOrder(b0.boundPort("INTERNAL"), b1.boundPort("INTERNAL"));
            });
            createTopicLedByEveryBroker(external);
        }
        commitsAcrossBrokers(b1, "c-");
    }

    /**
     * Certificate rotation reaches the brokers' connections to each other (Apache reconfigures its inter-broker
     * clients on a keystore update): INTERNAL is mutual TLS, the brokers' principal their certificate's DN. After a
     * transaction has opened the brokers' connections to each other with certificate CN=localhost, the keystore and
     * truststore files are replaced by CN=localhost-rotated and a truststore trusting only it, and CN=localhost loses
     * CLUSTER_ACTION. The next transaction's markers and AddPartitionsToTxn must come over new connections presenting
     * the new certificate: over the old connections (or new ones made with the old stores) they would be refused.
     */
    @Test
    void interBrokerConnectionsPresentTheRotatedCertificate(EtcdServer etcd) throws Exception {
        Path keystore = Files.copy(tls.brokerKeystore, stores.resolve("broker.p12"));
        Path truststore = Files.copy(tls.clientTruststore, stores.resolve("trust.p12")); // trusts both certificates
        Map<String, String> keys = clientsOnExternal("SSL");
        keys.put("ssl.keystore.location", keystore.toString());
        keys.put("ssl.truststore.location", truststore.toString());
        keys.put("listener.name.internal.ssl.client.auth", "required");
        keys.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        keys.put("super.users", "User:alice;User:CN=localhost-rotated");
        keys.put("kaas.ssl.store.reload.check.interval.ms", "100");
        KaasBroker b0 = start(etcd, 0, keys, EXTERNAL_AND_INTERNAL);
        KaasBroker b1 = start(etcd, 1, keys, EXTERNAL_AND_INTERNAL);
        AclBinding oldCertificate = new AclBinding(
                new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                new AccessControlEntry("User:CN=localhost", "*", AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW));
        try (Admin admin = Admin.create(alice(b1))) {
            admin.createAcls(List.of(oldCertificate)).all().get(30, TimeUnit.SECONDS);
            awaitInForceEverywhere(oldCertificate);
            createTopicLedByEveryBroker(admin);
        }
        commitsAcrossBrokers(b1, "before-");

        replace(truststore, tls.rotatedBrokerTruststore);
        replace(keystore, tls.rotatedBrokerKeystore);
        for (KaasBroker b : List.of(b0, b1)) {
            // ignoreExceptions: INTERNAL refuses the handshake's missing client certificate, once it has shown its own.
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> TlsMaterial.servedCertificateSubject(b.boundPort("INTERNAL"))
                            .equals("CN=localhost-rotated"));
        }
        try (Admin admin = Admin.create(alice(b1))) {
            admin.deleteAcls(List.of(oldCertificate.toFilter())).all().get(30, TimeUnit.SECONDS);
            // Every broker applies what one wrote to the shared ACL file within a second.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokers.stream()
                            .allMatch(b ->
                                    b.aclsInForce(oldCertificate.toFilter()).isEmpty()));
        }
        commitsAcrossBrokers(b1, "after-");
    }

    /**
     * Keys for clients on EXTERNAL (SASL_SSL, alice, whose credential this stores) and the brokers between themselves
     * on INTERNAL ({@code internal}, registered second).
     */
    private Map<String, String> clientsOnExternal(String internal) {
        ScramCredentialStore.inDataDir(dir)
                .upsert(
                        "alice",
                        ScramMechanism.SCRAM_SHA_512,
                        ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, ALICE, 4096));
        Map<String, String> keys = new HashMap<>(tls.brokerSsl());
        keys.put("listener.security.protocol.map", "EXTERNAL:SASL_SSL,INTERNAL:" + internal);
        keys.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        keys.put("inter.broker.listener.name", "INTERNAL");
        return keys;
    }

    /** Replaces {@code store} by a copy of {@code next} in one step, as an operator rotating it would. */
    private void replace(Path store, Path next) throws Exception {
        Path copy = Files.copy(next, stores.resolve(store.getFileName() + ".next"));
        Files.move(copy, store, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Topic t, 6 partitions, each led by a broker and every broker leading some: a transaction over it crosses brokers. */
    private void createTopicLedByEveryBroker(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
        List<Integer> ids = IntStream.range(0, brokers.size()).boxed().toList(); // brokers 0, 1, ... as started
        // ignoreExceptions: a broker lists a topic another created at its next reconcile; until then UNKNOWN_TOPIC.
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(
                                admin.describeTopics(List.of("t")).allTopicNames().get().get("t").partitions().stream()
                                        .map(TopicPartitionInfo::leader)
                                        .map(n -> n == null ? -1 : n.id()))
                        .as("the transaction's partitions are led by every broker")
                        .containsAll(ids)
                        .doesNotContain(-1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> brokers.stream()
                                .mapToInt(b -> b.engine().taken().size())
                                .sum()
                        == 6);
    }

    /**
     * Until every broker has {@code acl} in force: each applies what another wrote to the shared ACL file within a second,
     * and a broker asked before that (an AddPartitionsToTxn from another broker, say) would refuse.
     */
    private void awaitInForceEverywhere(AclBinding acl) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> brokers.stream()
                        .allMatch(b -> b.aclsInForce(acl.toFilter()).size() == 1));
    }

    /** A transaction over topic t's 6 partitions, from a producer on {@code via}, committed and read read_committed. */
    private void commitsAcrossBrokers(KaasBroker via, String prefix) throws Exception {
        Map<String, Object> p = alice(via);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID());
        List<String> committed;
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed = inTransaction(producer, prefix);
            producer.commitTransaction();
        }
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> assertThat(consumeAll(via, "read_committed")).containsAll(committed));
    }

    /** One record to each of topic t's 6 partitions in a new transaction, each acknowledged. */
    private static List<String> inTransaction(KafkaProducer<String, String> producer, String prefix) throws Exception {
        return TransactionalRecords.oneToEachPartition(producer, "t", 6, prefix, Duration.ofSeconds(30));
    }

    /** Every record of topic t up to its end (read_committed: the last stable offset, which markers move). */
    private List<String> consumeAll(KaasBroker via, String isolation) {
        return TransactionalRecords.readToEnd(alice(via), "t", 6, isolation);
    }
}
