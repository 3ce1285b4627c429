package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.StoreAddress;
import io.kaas.cluster.kubernetes.KubernetesClusterStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in this JVM over one data directory, coordinated through the Kubernetes backend against
 * fabric8's API server mock (CRUD mode): they split a topic's partitions, serve produce and consume across
 * brokers, and a clean stop hands a broker's partitions to the others, as with etcd (MultiBrokerIT).
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesMultiBrokerIT {
    private static final java.util.logging.Logger MOCK_LOG = quiet();
    static KubernetesMockServer server;

    @TempDir
    Path dir;

    private final List<KaasBroker> brokers = new ArrayList<>();
    private final String clusterId = "k8s-" + UUID.randomUUID();

    private static java.util.logging.Logger quiet() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
        log.setLevel(java.util.logging.Level.WARNING);
        return log;
    }

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    private KaasBroker start(int id) {
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withBrokerId(id)
                .withClusterId(clusterId)
                .withDefaultPartitions(6);
        // What k8s://kaas would connect to inside a pod, but on the mock: each broker its own client.
        StoreAddress mock =
                (cluster, timeout) -> KubernetesClusterStore.open(server.createClient(), "kaas", cluster, timeout);
        // The default lease (a clean stop revokes it, so nothing here waits for one to expire): a 2 s lease lapsed by
        // a pause of the shared test JVM would set partitions moving in the middle of the test.
        ClusterConfig cluster = new ClusterConfig(
                mock,
                ClusterConfig.DEFAULT_LEASE_TTL,
                ClusterConfig.DEFAULT_MARGIN,
                Duration.ofMillis(500),
                ClusterConfig.DEFAULT_TIMEOUT);
        KaasBroker b = KaasBroker.create(config, SecurityConfig.none(), cluster);
        brokers.add(b);
        return b.start();
    }

    /** Until each of {@code holders} holds {@code each} partitions; a timeout names what each one holds. */
    private static void awaitHolding(List<KaasBroker> holders, int each) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            java.util.Map<Integer, Set<io.kaas.storage.TopicPartition>> held = new java.util.TreeMap<>();
            holders.forEach(
                    b -> held.put(b.config().brokerId(), b.engine().taken().keySet()));
            assertThat(held.values())
                    .as("partitions held per broker: %s", held)
                    .allSatisfy(p -> assertThat(p).hasSize(each));
        });
    }

    @Test
    void threeBrokersSplitATopicAndHandOnAtAStop() throws Exception {
        KaasBroker b0 = start(0);
        KaasBroker b1 = start(1);
        KaasBroker b2 = start(2);
        try (Admin admin = Admin.create(java.util.Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                b0.bootstrapServers(),
                AdminClientConfig.METADATA_MAX_AGE_CONFIG,
                "500"))) {
            admin.createTopics(List.of(new NewTopic("t", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        awaitHolding(List.of(b0, b1, b2), 2);
        Set<String> sent = new HashSet<>(MultiBrokerIT.produce(b1, "a", 60));
        b2.stop(); // revokes its lease: its partitions move after the grace period
        awaitHolding(List.of(b0, b1), 3);
        sent.addAll(MultiBrokerIT.produce(b0, "b", 60));
        assertThat(MultiBrokerIT.consumeAll(b1, 6)).containsExactlyInAnyOrderElementsOf(sent);
    }
}
