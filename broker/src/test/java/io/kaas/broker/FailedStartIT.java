package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.Endpoint;
import io.kaas.cluster.StoreAddress;
import io.kaas.cluster.kubernetes.KubernetesClusterStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that fails late stops what it had started, in reverse: no thread of the broker's is left running and the
 * admin port it had bound is free again. Two late failures: a Kafka listener port already taken (after the admin
 * listener, the handler threads and the coordinators started), and, sharing a directory, a join refused because a
 * live broker holds the id (after the listeners were bound too).
 */
@EnableKubernetesMockClient(crud = true)
class FailedStartIT {
    private static final java.util.logging.Logger MOCK_LOG = quiet();
    static KubernetesMockServer server;

    @TempDir
    Path dir;

    private static java.util.logging.Logger quiet() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
        log.setLevel(java.util.logging.Level.WARNING);
        return log;
    }

    @Test
    void aTakenListenerPortStopsEverythingStartedBeforeIt() throws Exception {
        Set<Thread> before = brokerThreads();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            BrokerConfig config = BrokerConfig.forTest(dir)
                    .withRetentionCheckInterval(Duration.ZERO)
                    .withAdminListener(InetSocketAddress.createUnresolved("127.0.0.1", 0))
                    .withListeners(List.of(new Endpoint("PLAINTEXT", "127.0.0.1", taken.getLocalPort())));
            KaasBroker broker = KaasBroker.create(config);
            // Netty's bind failure, an IOException thrown undeclared.
            assertThatThrownBy(broker::start).isInstanceOf(IOException.class);
            InetSocketAddress admin = broker.adminAddress();
            assertThat(admin)
                    .as("the admin listener was up before the bind failed")
                    .isNotNull();

            assertNoBrokerThreadLeft(before);
            assertFree(admin.getPort());
            broker.stop(); // idempotent after a failed start
        }
    }

    @Test
    void aRefusedJoinStopsTheListenersTheAdminServerAndTheMembership() throws Exception {
        String clusterId = "failed-start-" + UUID.randomUUID();
        StoreAddress mock =
                (cluster, timeout) -> KubernetesClusterStore.open(server.createClient(), "kaas", cluster, timeout);
        try (ClusterStore other = mock.connect(clusterId, Duration.ofSeconds(5))) {
            long lease = other.grantLease(Duration.ofSeconds(60));
            assertThat(other.register(new BrokerRegistration(1, "127.0.0.1", 9), lease))
                    .isTrue();
            Set<Thread> before = brokerThreads();
            BrokerConfig config = BrokerConfig.forTest(dir)
                    .withBrokerId(1)
                    .withClusterId(clusterId)
                    .withRetentionCheckInterval(Duration.ZERO)
                    .withAdminListener(InetSocketAddress.createUnresolved("127.0.0.1", 0));
            ClusterConfig cluster = new ClusterConfig(
                    mock,
                    ClusterConfig.DEFAULT_LEASE_TTL,
                    ClusterConfig.DEFAULT_MARGIN,
                    Duration.ofMillis(500),
                    ClusterConfig.DEFAULT_TIMEOUT);
            KaasBroker broker = KaasBroker.create(config, SecurityConfig.none(), cluster);
            assertThatThrownBy(broker::start)
                    .isInstanceOf(CoordinationException.class)
                    .hasMessageContaining("already registered");
            int kafkaPort = broker.boundPort();

            assertNoBrokerThreadLeft(before);
            assertFree(broker.adminAddress().getPort());
            assertFree(kafkaPort);
            assertThat(other.brokers())
                    .as("the refused broker registered nothing")
                    .containsOnlyKeys(1);
            assertThat(other.brokers().get(1).port()).isEqualTo(9);
        }
    }

    /** The threads the broker names ({@code kaas-*}), and Apache's client-metrics manager's, that are alive now. */
    private static Set<Thread> brokerThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && (t.getName().startsWith("kaas-") || t.getName().contains("client-metrics"))) {
                out.add(t);
            }
        }
        return out;
    }

    /** Every broker thread started since {@code before} ends (a stopped executor's threads exit on their own). */
    private static void assertNoBrokerThreadLeft(Set<Thread> before) {
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Set<Thread> left = brokerThreads();
            left.removeAll(before);
            assertThat(left).extracting(Thread::getName).isEmpty();
        });
    }

    private static void assertFree(int port) throws IOException {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(port);
        }
    }
}
