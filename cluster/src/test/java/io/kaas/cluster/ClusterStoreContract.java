package io.kaas.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ClusterStore} backend promises, run against each: etcd ({@code EtcdClusterStoreIT}, a
 * real etcd) and Kubernetes ({@code KubernetesClusterStoreTest}, fabric8's API server mock). Two stores made
 * by {@link #store} for the same cluster id see one another's writes.
 */
public abstract class ClusterStoreContract {
    protected static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** A new store (a new client) for {@code cluster}. */
    protected abstract ClusterStore store(String cluster);

    @Test
    void aBrokerIdIsRegisteredOnceAndVanishesWithItsLease() {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore a = store(cluster);
                ClusterStore b = store(cluster)) {
            long la = a.grantLease(Duration.ofSeconds(2));
            long lb = b.grantLease(Duration.ofSeconds(2));
            assertThat(a.register(new BrokerRegistration(1, "127.0.0.1", 9001), la))
                    .isTrue();
            assertThat(b.register(new BrokerRegistration(1, "127.0.0.1", 9002), lb))
                    .as("same id while the first lives")
                    .isFalse();
            // Every advertised listener, for the others' inter-broker requests (inter.broker.listener.name).
            BrokerRegistration two = new BrokerRegistration(
                    2, "127.0.0.1", 9002, java.util.List.of("SASL_SSL://127.0.0.1:9002", "INTERNAL://[::1]:9102"));
            assertThat(b.register(two, lb)).isTrue();
            assertThat(a.brokers())
                    .containsOnlyKeys(1, 2)
                    .containsEntry(1, new BrokerRegistration(1, "127.0.0.1", 9001))
                    .containsEntry(2, two);
            assertThat(a.brokers().get(2).endpoint("INTERNAL"))
                    .hasValue(new io.kaas.cluster.Endpoint("INTERNAL", "::1", 9102));
            assertThat(a.brokers().get(1).endpoint("INTERNAL")).isEmpty();

            b.revokeLease(lb);
            assertThat(a.brokers()).containsOnlyKeys(1);
            assertThat(a.renewLease(lb)).as("a revoked lease renews to nothing").isZero();
            // Not renewed: etcd expires it after its TTL and the registration goes with it.
            await().atMost(Duration.ofSeconds(10)).until(() -> a.brokers().isEmpty());
            assertThat(a.renewLease(la)).isZero();
        }
    }

    @Test
    void aRenewalReportsTheTimeLeft() {
        try (ClusterStore s = store(UUID.randomUUID().toString())) {
            long lease = s.grantLease(Duration.ofSeconds(3));
            assertThat(s.renewLease(lease)).isEqualTo(Duration.ofSeconds(3));
        }
    }

    @Test
    void assignmentAndEpochsAreWrittenByCompareAndSet() {
        try (ClusterStore s = store(UUID.randomUUID().toString())) {
            Versioned<Assignment> none = s.assignment();
            assertThat(none).isEqualTo(new Versioned<>(Assignment.EMPTY, 0));
            Assignment first = Assignment.EMPTY.rebalanced(Map.of("t", 2), Set.of(1));
            assertThat(s.compareAndSetAssignment(0, first)).isTrue();
            assertThat(s.compareAndSetAssignment(0, first)).as("stale version").isFalse();
            Versioned<Assignment> read = s.assignment();
            assertThat(read.value()).isEqualTo(first);
            assertThat(read.value().owner(new TopicPartition("t", 1))).hasValue(1);

            TopicPartition tp = new TopicPartition("t", 0);
            Versioned<Integer> e0 = s.epoch(tp);
            assertThat(e0).isEqualTo(new Versioned<>(0, 0L));
            long lease = s.grantLease(Duration.ofSeconds(5));
            assertThat(s.claim(tp, e0.version(), 1, 1, lease)).isTrue();
            assertThat(s.holder(tp)).hasValue(1);
            assertThat(s.claim(tp, e0.version(), 1, 2, lease))
                    .as("a second taker with the same view loses")
                    .isFalse();
            assertThat(s.claim(tp, s.epoch(tp).version(), 2, 2, lease))
                    .as("held: not before the holder lets go")
                    .isFalse();
            s.release(tp, 2);
            assertThat(s.holder(tp)).as("only the holder releases").hasValue(1);
            s.release(tp, 1);
            assertThat(s.holder(tp)).isEmpty();
            assertThat(s.claim(tp, s.epoch(tp).version(), 2, 2, lease)).isTrue();
            s.revokeLease(lease);
            assertThat(s.holder(tp)).as("a holder's key goes with its lease").isEmpty();
            assertThat(s.epoch(tp).value()).isEqualTo(2);
        }
    }

    @Test
    void topicsArePublishedAndWatched() throws Exception {
        try (ClusterStore s = store(UUID.randomUUID().toString())) {
            AtomicInteger changes = new AtomicInteger();
            try (AutoCloseable w = s.watch(changes::incrementAndGet, () -> {})) {
                await().atMost(TIMEOUT).until(() -> changes.get() >= 1); // created notify
                int before = changes.get();
                s.publishTopic("orders", 3);
                await().atMost(TIMEOUT).until(() -> changes.get() > before);
                assertThat(s.topics()).containsExactly(Map.entry("orders", 3));
                s.unpublishTopic("orders");
                assertThat(s.topics()).isEmpty();
            }
        }
    }

    @Test
    void oneControllerAtATimeAndTheNextOnceItsLeaseEnds() throws Exception {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore a = store(cluster);
                ClusterStore b = store(cluster)) {
            long la = a.grantLease(Duration.ofSeconds(5));
            long lb = b.grantLease(Duration.ofSeconds(5));
            a.campaign(1, la).get(30, java.util.concurrent.TimeUnit.SECONDS);
            CompletableFuture<Void> second = b.campaign(2, lb);
            Thread.onSpinWait();
            assertThat(second).as("while the first controller's lease holds").isNotDone();
            a.revokeLease(la);
            second.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void aLeaseKeptRenewedStaysAliveForOthers() {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore a = store(cluster);
                ClusterStore b = store(cluster)) {
            long la = a.grantLease(Duration.ofSeconds(2));
            assertThat(a.register(new BrokerRegistration(7, "127.0.0.1", 9007), la))
                    .isTrue();
            // Renewed at every poll: another store must see it alive throughout, for more than twice its TTL.
            await().during(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(8))
                    .pollInterval(Duration.ofMillis(400))
                    .until(() -> !a.renewLease(la).isZero() && b.brokers().containsKey(7));
            long lb = b.grantLease(Duration.ofSeconds(2));
            assertThat(b.register(new BrokerRegistration(7, "127.0.0.1", 9008), lb))
                    .as("the id is still taken")
                    .isFalse();
        }
    }

    @Test
    void producerIdBlocksNeverOverlapAcrossStores() throws Exception {
        String cluster = UUID.randomUUID().toString();
        try (ClusterStore a = store(cluster);
                ClusterStore b = store(cluster)) {
            java.util.Set<Long> starts = java.util.concurrent.ConcurrentHashMap.newKeySet();
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    ClusterStore s = t % 2 == 0 ? a : b;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 10; i++) {
                            starts.add(s.allocateProducerIdBlock(1000));
                        }
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(starts).hasSize(40).allSatisfy(s -> assertThat(s % 1000).isZero());
            assertThat(a.allocateProducerIdBlock(1000)).isEqualTo(40_000);
        }
    }
}
