package io.kaas.cluster.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.ClusterStoreContract;
import io.kaas.cluster.CoordinationException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes backend of the coordination seam against fabric8's API server mock in CRUD mode (it keeps
 * objects, checks resourceVersions on update and serves watches; it is not a real API server): the shared
 * contract, and what a Kubernetes user sees.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesClusterStoreTest extends ClusterStoreContract {
    /** The mock logs every request at INFO through java.util.logging; held so the setting is not collected. */
    private static final java.util.logging.Logger MOCK_LOG = quiet();

    static KubernetesMockServer server;
    static KubernetesClient client;

    private static java.util.logging.Logger quiet() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
        log.setLevel(java.util.logging.Level.WARNING);
        return log;
    }

    @Override
    protected ClusterStore store(String cluster) {
        return KubernetesClusterStore.open(server.createClient(), "kaas", cluster, TIMEOUT);
    }

    @Test
    void leasesAndTheControllerAreLeaseObjectsKubectlShows() throws Exception {
        String cluster = "Orders_" + UUID.randomUUID();
        String prefix = KubernetesClusterStore.namePrefix(cluster);
        try (ClusterStore s = store(cluster)) {
            long lease = s.grantLease(Duration.ofSeconds(4));
            assertThat(s.register(new BrokerRegistration(3, "10.0.0.3", 9092), lease))
                    .isTrue();
            s.campaign(3, lease).get(30, java.util.concurrent.TimeUnit.SECONDS);
            Lease member = client.leases()
                    .inNamespace("kaas")
                    .withName(prefix + "-m-" + Long.toHexString(lease))
                    .get();
            assertThat(member.getSpec().getHolderIdentity()).isEqualTo(Long.toHexString(lease));
            assertThat(member.getSpec().getLeaseDurationSeconds()).isEqualTo(4);
            assertThat(member.getSpec().getRenewTime()).isNotNull();
            assertThat(member.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "kaas");
            Lease controller = client.leases()
                    .inNamespace("kaas")
                    .withName(prefix + "-controller")
                    .get();
            assertThat(controller.getSpec().getHolderIdentity()).isEqualTo("broker-3");
            assertThat(client.configMaps()
                            .inNamespace("kaas")
                            .withName(prefix)
                            .get()
                            .getData())
                    .containsKey("state.json");

            String before = member.getSpec().getRenewTime().toString();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                s.renewLease(lease);
                return !client.leases()
                        .inNamespace("kaas")
                        .withName(member.getMetadata().getName())
                        .get()
                        .getSpec()
                        .getRenewTime()
                        .toString()
                        .equals(before);
            });
        }
    }

    @Test
    void aCampaignEndsWhenItsLeaseIsGoneInsteadOfPollingForGood() throws Exception {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore leader = store(cluster);
                ClusterStore waiter = store(cluster)) {
            long first = leader.grantLease(Duration.ofSeconds(30));
            leader.campaign(1, first).get(30, java.util.concurrent.TimeUnit.SECONDS);
            long second = waiter.grantLease(Duration.ofSeconds(30));
            java.util.concurrent.CompletableFuture<Void> waiting = waiter.campaign(2, second);
            assertThat(waiting).isNotDone(); // broker 1 leads
            waiter.revokeLease(second);
            await().atMost(Duration.ofSeconds(10)).until(waiting::isDone);
            assertThat(waiting)
                    .failsWithin(Duration.ZERO)
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(CoordinationException.class)
                    .withMessageContaining("is gone");
        }
    }

    @Test
    void anExpiredLeaseIsMarkedThenDeletedAndItsHolderCannotRenewIt() {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore holder = store(cluster);
                ClusterStore observer = store(cluster)) {
            long lease = holder.grantLease(Duration.ofSeconds(2));
            assertThat(holder.register(new BrokerRegistration(1, "h", 1), lease))
                    .isTrue();
            // The holder is silent (as if SIGSTOPped); the observer judges by what it saw, on its own clock.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> observer.brokers().isEmpty());
            String name = KubernetesClusterStore.namePrefix(cluster) + "-m-" + Long.toHexString(lease);
            assertThat(client.leases().inNamespace("kaas").withName(name).get()).isNull();
            assertThat(holder.renewLease(lease))
                    .as("the late renewal finds it gone")
                    .isZero();
        }
    }

    @Test
    void clusterIdsBecomeDnsNamesThatNeverCollide() {
        assertThat(KubernetesClusterStore.namePrefix("kaas-cluster-0000000001"))
                .isEqualTo("kaas-kaas-cluster-0000000001");
        assertThat(KubernetesClusterStore.namePrefix("Orders")).matches("kaas-orders-[0-9a-f]{8}");
        assertThat(KubernetesClusterStore.namePrefix("orders_a"))
                .isNotEqualTo(KubernetesClusterStore.namePrefix("orders.a"));
        assertThat(KubernetesClusterStore.namePrefix("x".repeat(100))).hasSizeLessThanOrEqualTo(5 + 40 + 9);
    }

    @Test
    void theCoordinatorUriNamesANamespaceAndAContext() {
        assertThat(ClusterConfig.parse("k8s://kafka").store()).isEqualTo(new KubernetesAddress("kafka", null));
        assertThat(ClusterConfig.parse("kubernetes://kafka/?context=prod").store())
                .isEqualTo(new KubernetesAddress("kafka", "prod"));
        assertThat(ClusterConfig.parse("k8s://").store()).isEqualTo(new KubernetesAddress(null, null));
        assertThatThrownBy(() -> ClusterConfig.parse("k8s://Kafka_NS"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Kubernetes namespace");
        assertThatThrownBy(() -> ClusterConfig.parse("k8s://kafka?master=x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown parameter 'master=x'");
        assertThatThrownBy(() -> ClusterConfig.parse("zk://h:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("k8s://");
    }

    @Test
    void anUnreachableApiServerIsAClearError() {
        io.fabric8.kubernetes.client.Config config = new io.fabric8.kubernetes.client.ConfigBuilder(
                        io.fabric8.kubernetes.client.Config.empty())
                .withMasterUrl("http://127.0.0.1:1")
                .build();
        assertThatThrownBy(() -> KubernetesClusterStore.connect(config, "kaas", "x", Duration.ofMillis(500)))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("127.0.0.1:1");
    }
}
