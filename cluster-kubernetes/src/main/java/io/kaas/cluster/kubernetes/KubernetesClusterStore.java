package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kaas.cluster.Assignment;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.Versioned;
import io.kaas.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

/**
 * {@link ClusterStore} on the Kubernetes API (fabric8 {@code kubernetes-client} over the JDK's HTTP client),
 * for brokers run as pods over one ReadWriteMany volume. In the namespace, for cluster id {@code ID} (names
 * derived by {@link #namePrefix}):
 * <pre>
 *   Lease     kaas-ID-m-&lt;lease hex&gt;   one per membership lease ({@link MembershipLeases})
 *   Lease     kaas-ID-controller       the elected controller ({@link ControllerCampaign})
 *   ConfigMap kaas-ID                  key state.json ({@link StateConfigMap}, {@link SharedState}): brokers,
 *                                     assignment, topics, epochs, holders, producer ids — every change a
 *                                     compare-and-set on the ConfigMap's resourceVersion
 * </pre>
 * This class is the seam's rules over those parts: entries under a lease (registrations, holders) count only while
 * the lease lives as this observer judges it, and are dropped at the next write once it is dead. Watches:
 * {@link StoreWatches}.
 *
 * <p>Tested against fabric8's API server mock in CRUD mode only (cluster-kubernetes/README.md,
 * docs/several-brokers.md). Thread-safe.
 */
public final class KubernetesClusterStore implements ClusterStore {
    private final KubernetesCalls api;
    private final MembershipLeases leases;
    private final ControllerCampaign controller;
    private final StateConfigMap state;

    private KubernetesClusterStore(KubernetesClient client, String namespace, String clusterId, Duration timeout) {
        this.api = new KubernetesCalls(client, namespace, namePrefix(clusterId));
        this.leases = new MembershipLeases(api);
        this.controller = new ControllerCampaign(api, leases);
        this.state = new StateConfigMap(api, timeout);
    }

    /**
     * A store on the API server {@code config} names, in {@code namespace}; checked with one read.
     *
     * @throws CoordinationException when the API server does not answer within {@code timeout} or refuses
     */
    public static KubernetesClusterStore connect(Config config, String namespace, String clusterId, Duration timeout) {
        int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        config.setRequestTimeout(ms);
        config.setConnectionTimeout(ms);
        config.setRequestRetryBackoffLimit(0); // a call fails within the timeout; the caller retries at its next pass
        return open(new KubernetesClientBuilder().withConfig(config).build(), namespace, clusterId, timeout);
    }

    /** A store over {@code client} (which it closes), in {@code namespace}; checked with one read. */
    public static KubernetesClusterStore open(
            KubernetesClient client, String namespace, String clusterId, Duration timeout) {
        KubernetesClusterStore store = new KubernetesClusterStore(client, namespace, clusterId, timeout);
        try {
            store.api.call(
                    () -> store.state.resource().get(),
                    "reach the Kubernetes API at " + client.getMasterUrl() + " (namespace " + namespace + ")");
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * {@code kaas-} and the cluster id as a DNS-1123 name (lower case, other characters as '-'), with a hash of
     * the id when that changed it or cut it short, so two ids never share objects.
     */
    static String namePrefix(String clusterId) {
        String s = clusterId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        boolean changed = !s.equals(clusterId);
        if (s.length() > 40) {
            s = s.substring(0, 40);
            changed = true;
        }
        s = s.replaceAll("^-+|-+$", "");
        if (changed) {
            CRC32 crc = new CRC32();
            crc.update(clusterId.getBytes(StandardCharsets.UTF_8));
            s = s + (s.isEmpty() ? "" : "-") + String.format("%08x", crc.getValue());
        }
        return "kaas-" + s;
    }

    // ---------------------------------------------------------------- leases

    @Override
    public long grantLease(Duration ttl) {
        return leases.grant(ttl);
    }

    @Override
    public Duration renewLease(long lease) {
        return leases.renew(lease);
    }

    @Override
    public void revokeLease(long lease) {
        leases.revoke(lease);
    }

    // ---------------------------------------------------------------- membership and the controller

    @Override
    public boolean register(BrokerRegistration broker, long lease) {
        Set<Long> live = leases.live();
        return state.update("register broker " + broker.brokerId(), s -> {
            s.forgetDeadLeases(live);
            SharedState.Member m = s.brokers.get(broker.brokerId());
            if (m != null && m.lease() != lease) {
                return false;
            }
            s.brokers.put(
                    broker.brokerId(), new SharedState.Member(broker.host(), broker.port(), lease, broker.endpoints()));
            return true;
        });
    }

    @Override
    public Map<Integer, BrokerRegistration> brokers() {
        SharedState s = state.read();
        Set<Long> live = leases.live();
        Map<Integer, BrokerRegistration> out = new TreeMap<>();
        s.brokers.forEach((id, m) -> {
            if (live.contains(m.lease())) {
                out.put(id, new BrokerRegistration(id, m.host(), m.port(), m.endpoints()));
            }
        });
        return out;
    }

    @Override
    public CompletableFuture<Void> campaign(int brokerId, long lease) {
        return controller.campaign(brokerId, lease);
    }

    // ---------------------------------------------------------------- assignment, topics, epochs

    @Override
    public Versioned<Assignment> assignment() {
        SharedState s = state.read();
        return new Versioned<>(s.assignment, s.assignmentVersion);
    }

    @Override
    public boolean compareAndSetAssignment(long expectedVersion, Assignment next) {
        return state.update("write the assignment", s -> {
            if (s.assignmentVersion != expectedVersion) {
                return false;
            }
            s.assignment = next;
            s.assignmentVersion = s.nextRevision();
            return true;
        });
    }

    @Override
    public Map<String, Integer> topics() {
        return new TreeMap<>(state.read().topics);
    }

    @Override
    public void publishTopic(String topic, int partitions) {
        state.update("publish topic " + topic, s -> s.topics.put(topic, partitions));
    }

    @Override
    public void unpublishTopic(String topic) {
        state.update("unpublish topic " + topic, s -> s.topics.remove(topic));
    }

    @Override
    public Versioned<Integer> epoch(TopicPartition tp) {
        SharedState.Epoch e = state.read().epochs.get(SharedState.key(tp));
        return e == null ? new Versioned<>(0, 0) : new Versioned<>(e.epoch(), e.version());
    }

    @Override
    public boolean claim(TopicPartition tp, long expectedEpochVersion, int nextEpoch, int brokerId, long lease) {
        Set<Long> live = leases.live();
        String key = SharedState.key(tp);
        return state.update("claim " + tp, s -> {
            s.forgetDeadLeases(live);
            SharedState.Epoch e = s.epochs.get(key);
            if ((e == null ? 0 : e.version()) != expectedEpochVersion || s.holders.containsKey(key)) {
                return false;
            }
            s.epochs.put(key, new SharedState.Epoch(nextEpoch, s.nextRevision()));
            s.holders.put(key, new SharedState.Holder(brokerId, lease));
            return true;
        });
    }

    @Override
    public void release(TopicPartition tp, int brokerId) {
        String key = SharedState.key(tp);
        state.update("release " + tp, s -> {
            SharedState.Holder h = s.holders.get(key);
            return h != null && h.broker() == brokerId && s.holders.remove(key) != null;
        });
    }

    @Override
    public OptionalInt holder(TopicPartition tp) {
        SharedState.Holder h = state.read().holders.get(SharedState.key(tp));
        return h != null && leases.live().contains(h.lease()) ? OptionalInt.of(h.broker()) : OptionalInt.empty();
    }

    @Override
    public long allocateProducerIdBlock(long size) {
        return state.update("reserve producer ids", s -> {
            long start = s.nextProducerId;
            s.nextProducerId = start + size;
            return start;
        });
    }

    // ---------------------------------------------------------------- watching

    @Override
    public AutoCloseable watch(Runnable onChange, Runnable onLost) {
        return StoreWatches.watch(api, state, onChange, onLost);
    }

    @Override
    public void close() {
        controller.close();
        api.client().close();
    }
}
