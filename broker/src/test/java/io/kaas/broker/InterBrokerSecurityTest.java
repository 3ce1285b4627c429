package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.coordination.ClusterConfig;
import io.kaas.broker.coordination.EtcdServer;
import io.kaas.broker.security.ScramCredentialStore;
import io.kaas.broker.security.SecurityConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers over one directory whose only listener is SASL_SSL (SCRAM-SHA-512), as an Apache cluster with
 * {@code inter.broker.listener.name=SASL_SSL}: the transaction coordinator's markers (WriteTxnMarkers) and the
 * partition leaders' AddPartitionsToTxn reach the other brokers over TLS, logged in as the broker's own user from
 * {@code listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config}, and that user is authorized like any other
 * (CLUSTER_ACTION, granted by an ACL; the client is the only super user).
 */
@ExtendWith(EtcdServer.Shared.class)
class InterBrokerSecurityTest {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final String ALICE = "alice-Secret-1";
    private static final String BROKER = "broker-Secret-1";

    @TempDir
    Path dir;
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
        keys.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" password=\"" + BROKER + "\";");
        keys.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        keys.put("super.users", "User:alice");
        return start(etcd, id, keys, List.of(new Endpoint("SASL_SSL", "127.0.0.1", 0)));
    }

    private KaasBroker start(EtcdServer etcd, int id, Map<String, String> keys, List<Endpoint> listeners) {
        BrokerConfig config = BrokerConfig.forTest(dir).withListeners(listeners)
                .withBrokerId(id).withClusterId(clusterId).withDefaultPartitions(6);
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
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"" + ALICE + "\";");
        p.put(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, "500");
        return p;
    }

    @Test
    void aTransactionOverPartitionsOfThreeSaslSslBrokersCommitsAndIsReadCommitted(EtcdServer etcd) throws Exception {
        ScramCredentialStore credentials = ScramCredentialStore.inDataDir(dir);
        credentials.upsert("alice", ScramMechanism.SCRAM_SHA_512, ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, ALICE, 4096));
        credentials.upsert("broker", ScramMechanism.SCRAM_SHA_512, ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, BROKER, 4096));
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        start(etcd, 2);
        try (Admin admin = Admin.create(alice(b1))) {
            admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:broker", "*", AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW))))
                    .all().get(30, TimeUnit.SECONDS);
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // ignoreExceptions: a broker lists a topic another created at its next reconcile; until then UNKNOWN_TOPIC.
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(admin.describeTopics(List.of("t"))
                    .allTopicNames().get().get("t").partitions().stream().map(TopicPartitionInfo::leader).map(n -> n == null ? -1 : n.id()))
                    .as("the transaction's partitions are led by all three brokers").contains(0, 1, 2).doesNotContain(-1));
            await().atMost(Duration.ofSeconds(30)).until(() -> brokers.stream().mapToInt(b -> b.engine().taken().size()).sum() == 6);
        }
        Map<String, Object> p = alice(b1);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID());
        List<String> committed = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed.addAll(inTransaction(producer, "c1-"));
            producer.commitTransaction();
            aborted.addAll(inTransaction(producer, "a1-"));
            producer.abortTransaction();
            committed.addAll(inTransaction(producer, "c2-"));
            producer.commitTransaction();
        }
        // Markers move the last stable offset: every committed record becomes visible, no aborted one.
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
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
        ScramCredentialStore.inDataDir(dir).upsert("alice", ScramMechanism.SCRAM_SHA_512,
                ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_512, ALICE, 4096));
        Map<String, String> keys = new HashMap<>(tls.brokerSsl());
        keys.put("listener.security.protocol.map", "EXTERNAL:SASL_SSL,INTERNAL:PLAINTEXT");
        keys.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        keys.put("inter.broker.listener.name", "INTERNAL");
        List<Endpoint> listeners = List.of(new Endpoint("EXTERNAL", "127.0.0.1", 0), new Endpoint("INTERNAL", "127.0.0.1", 0));
        KaasBroker b0 = start(etcd, 0, keys, listeners);
        KaasBroker b1 = start(etcd, 1, keys, listeners);
        Map<String, Object> internal = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + b1.boundPort("INTERNAL"));
        try (Admin external = Admin.create(alice(b0)); Admin plain = Admin.create(internal)) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(external.describeCluster().nodes().get().stream().map(n -> n.port()))
                        .containsExactlyInAnyOrder(b0.boundPort("EXTERNAL"), b1.boundPort("EXTERNAL"));
                assertThat(plain.describeCluster().nodes().get().stream().map(n -> n.port()))
                        .containsExactlyInAnyOrder(b0.boundPort("INTERNAL"), b1.boundPort("INTERNAL"));
            });
            external.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> b0.engine().taken().size() + b1.engine().taken().size() == 6
                    && !b0.engine().taken().isEmpty() && !b1.engine().taken().isEmpty());
        }
        Map<String, Object> p = alice(b1);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID());
        List<String> committed;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            committed = inTransaction(producer, "c-");
            producer.commitTransaction();
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(consumeAll(b1, "read_committed")).containsExactlyInAnyOrderElementsOf(committed));
    }

    /** One record to each of topic t's 6 partitions in a new transaction, each acknowledged. */
    private static List<String> inTransaction(KafkaProducer<String, String> producer, String prefix) throws Exception {
        producer.beginTransaction();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            producer.send(new ProducerRecord<>("t", i, null, prefix + i)).get(30, TimeUnit.SECONDS);
            sent.add(prefix + i);
        }
        return sent;
    }

    /** Every record of topic t up to its end (read_committed: the last stable offset, which markers move). */
    private List<String> consumeAll(KaasBroker via, String isolation) {
        Map<String, Object> p = alice(via);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                tps.add(new TopicPartition("t", i));
            }
            c.assign(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
                return tps.stream().allMatch(tp -> c.position(tp) >= ends.get(tp));
            });
        }
        return out;
    }
}
