package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.kaas.cluster.Assignment;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.Versioned;
import io.kaas.storage.TopicPartition;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * {@link ClusterStore} on the Kubernetes API (fabric8 {@code kubernetes-client} over the JDK's HTTP client),
 * for brokers run as pods over one ReadWriteMany volume. In the namespace, for cluster id {@code ID} (names
 * derived by {@link #namePrefix}):
 * <pre>
 *   Lease     kaas-ID-m-&lt;lease hex&gt;   one per membership lease: holderIdentity = the lease id in hex,
 *                                     leaseDurationSeconds = the TTL, renewTime moved at each renewal
 *   Lease     kaas-ID-controller       the elected controller: holderIdentity = broker-N, annotation
 *                                     kaas.io/lease = its membership lease (valid while that one lives)
 *   ConfigMap kaas-ID                  key state.json ({@link SharedState}): brokers, assignment, topics,
 *                                     epochs, holders, producer ids — every change a compare-and-set on
 *                                     the ConfigMap's resourceVersion
 * </pre>
 * Kubernetes does not expire a Lease: each observer judges it ({@link LeaseObservations}, the way client-go's
 * leader election does) and the first to find one silent for its whole duration marks it expired by
 * compare-and-set (holderIdentity cleared) and deletes it, so a renewal racing the marking either lands
 * first (the marking fails) or finds the Lease gone (the holder is fenced). Entries under a dead lease stop
 * counting at once and are dropped at the next write.
 *
 * <p>Why not fabric8's {@code LeaderElector}: it renews a Lease of its own, which could be lost while the
 * membership lease holds (or the reverse); here the controller is whoever holds a live membership lease
 * named in the controller Lease, so leadership and membership end together, as with etcd's election.
 *
 * <p>Tested against fabric8's API server mock in CRUD mode only (cluster-kubernetes/README.md, docs/several-brokers.md). Thread-safe.
 */
public final class KubernetesClusterStore implements ClusterStore {
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String CLUSTER_LABEL = "kaas.io/cluster";
    static final String ROLE_LABEL = "kaas.io/role";
    static final String LEASE_ANNOTATION = "kaas.io/lease";
    private static final String STATE_KEY = "state.json";
    private static final SecureRandom IDS = new SecureRandom();

    private final KubernetesClient client;
    private final String namespace;
    private final String prefix;
    private final Duration timeout;
    private final LeaseObservations observations = new LeaseObservations(System::nanoTime);
    private final ScheduledExecutorService campaigns;
    private final Set<CompletableFuture<Void>> pendingCampaigns = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private KubernetesClusterStore(KubernetesClient client, String namespace, String clusterId, Duration timeout) {
        this.client = client;
        this.namespace = namespace;
        this.prefix = namePrefix(clusterId);
        this.timeout = timeout;
        this.campaigns =
                Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-k8s-campaign", true));
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
            store.call(
                    () -> store.stateMap().get(),
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
        String s = clusterId.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
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
        while (true) {
            long id = IDS.nextLong() & Long.MAX_VALUE;
            ZonedDateTime now = now();
            Lease lease = new LeaseBuilder()
                    .withNewMetadata()
                    .withName(leaseName(id))
                    .withLabels(labels("member"))
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(Long.toHexString(id))
                    .withLeaseDurationSeconds((int) Math.max(1, ttl.toSeconds()))
                    .withAcquireTime(now)
                    .withRenewTime(now)
                    .endSpec()
                    .build();
            try {
                call(
                        () -> client.leases()
                                .inNamespace(namespace)
                                .resource(lease)
                                .create(),
                        "grant a lease");
                return id;
            } catch (CoordinationException e) {
                if (code(e) != 409) {
                    throw e;
                }
                // That random id is taken: draw another.
            }
        }
    }

    @Override
    public Duration renewLease(long lease) {
        String hex = Long.toHexString(lease);
        for (int attempt = 0; attempt < 3; attempt++) {
            Lease l = call(
                    () -> client.leases()
                            .inNamespace(namespace)
                            .withName(leaseName(lease))
                            .get(),
                    "read lease " + hex);
            if (l == null || l.getSpec() == null || !hex.equals(l.getSpec().getHolderIdentity())) {
                return Duration.ZERO; // revoked, or marked expired by an observer: gone for good
            }
            l.getSpec().setRenewTime(now());
            try {
                // Compare-and-set on the resourceVersion just read: an observer's expiry marking in between wins.
                call(() -> client.leases().inNamespace(namespace).resource(l).update(), "renew lease " + hex);
                return Duration.ofSeconds(l.getSpec().getLeaseDurationSeconds());
            } catch (CoordinationException e) {
                if (code(e) == 404) {
                    return Duration.ZERO;
                }
                if (code(e) != 409) {
                    throw e;
                }
            }
        }
        throw new CoordinationException("renew lease " + hex + ": changed under every attempt");
    }

    @Override
    public void revokeLease(long lease) {
        call(
                () -> client.leases()
                        .inNamespace(namespace)
                        .withName(leaseName(lease))
                        .delete(),
                "revoke lease " + Long.toHexString(lease));
    }

    /**
     * The membership leases alive as this observer judges them; marks expired (compare-and-set) and deletes
     * those silent for their whole duration.
     */
    private Set<Long> liveLeases() {
        Set<Long> live = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (Lease l : call(
                () -> client.leases()
                        .inNamespace(namespace)
                        .withLabel(CLUSTER_LABEL, prefix)
                        .withLabel(ROLE_LABEL, "member")
                        .list()
                        .getItems(),
                "list the leases")) {
            String name = l.getMetadata().getName();
            names.add(name);
            String holder = l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
            Long id = parseHex(holder);
            if (id == null || !name.equals(leaseName(id))) {
                deleteQuietly(name); // marked expired earlier: only its removal is left
                continue;
            }
            int duration = l.getSpec().getLeaseDurationSeconds() == null
                    ? 1
                    : l.getSpec().getLeaseDurationSeconds();
            if (!observations.expired(name, l.getMetadata().getResourceVersion(), duration)) {
                live.add(id);
                continue;
            }
            l.getSpec().setHolderIdentity("");
            try {
                call(() -> client.leases().inNamespace(namespace).resource(l).update(), "expire lease " + holder);
                deleteQuietly(name);
            } catch (CoordinationException e) {
                if (code(e) == 409) {
                    live.add(id); // renewed just now: alive after all
                } else if (code(e) != 404) {
                    throw e;
                }
            }
        }
        observations.retain(names);
        return live;
    }

    private void deleteQuietly(String leaseName) {
        try {
            call(
                    () -> client.leases()
                            .inNamespace(namespace)
                            .withName(leaseName)
                            .delete(),
                    "delete lease " + leaseName);
        } catch (CoordinationException e) {
            // Anyone may remove a dead lease; the next observer tries again.
        }
    }

    // ---------------------------------------------------------------- membership and the controller

    @Override
    public boolean register(BrokerRegistration broker, long lease) {
        Set<Long> live = liveLeases();
        return update("register broker " + broker.brokerId(), s -> {
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
        SharedState s = read();
        Set<Long> live = liveLeases();
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
        CompletableFuture<Void> elected = new CompletableFuture<>();
        pendingCampaigns.add(elected);
        ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
        synchronized (task) {
            task[0] = campaigns.scheduleWithFixedDelay(
                    () -> {
                        synchronized (task) {
                            if (elected.isDone()) {
                                task[0].cancel(false);
                                return;
                            }
                        }
                        try {
                            switch (tryToLead(brokerId, lease)) {
                                case LEADS -> {
                                    pendingCampaigns.remove(elected);
                                    elected.complete(null);
                                }
                                case LEASE_GONE -> {
                                    // As etcd's campaign fails on a revoked lease: otherwise every lost lease would
                                    // leave a
                                    // campaign polling the API server for good. A new membership campaigns anew.
                                    pendingCampaigns.remove(elected);
                                    elected.completeExceptionally(new CoordinationException("campaign of broker "
                                            + brokerId + " ended: its lease " + Long.toHexString(lease) + " is gone"));
                                }
                                case WAITS -> {}
                            }
                        } catch (CoordinationException e) {
                            // Unreachable for now: the next attempt retries, as etcd's campaign would keep waiting.
                        } catch (RuntimeException | LinkageError e) {
                            // A bug, not an outage: fail the campaign loudly rather than let the scheduler drop the
                            // task silently.
                            pendingCampaigns.remove(elected);
                            elected.completeExceptionally(e);
                        }
                    },
                    0,
                    500,
                    TimeUnit.MILLISECONDS);
        }
        return elected;
    }

    private enum Attempt {
        LEADS,
        WAITS,
        LEASE_GONE
    }

    /** One attempt: take the controller Lease if it is free or names a dead membership lease. */
    private Attempt tryToLead(int brokerId, long lease) {
        String name = prefix + "-controller";
        String hex = Long.toHexString(lease);
        Lease current =
                call(() -> client.leases().inNamespace(namespace).withName(name).get(), "read the controller lease");
        if (current != null
                && hex.equals(
                        current.getMetadata().getAnnotations() == null
                                ? null
                                : current.getMetadata().getAnnotations().get(LEASE_ANNOTATION))) {
            return Attempt.LEADS;
        }
        Set<Long> live = liveLeases();
        if (!live.contains(lease)) {
            return Attempt.LEASE_GONE;
        }
        if (current != null) {
            Long holder = parseHex(
                    current.getMetadata().getAnnotations() == null
                            ? null
                            : current.getMetadata().getAnnotations().get(LEASE_ANNOTATION));
            if (holder != null && live.contains(holder)) {
                return Attempt.WAITS;
            }
        }
        ZonedDateTime now = now();
        int transitions = current == null
                        || current.getSpec() == null
                        || current.getSpec().getLeaseTransitions() == null
                ? 0
                : current.getSpec().getLeaseTransitions() + 1;
        Lease next = new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels("controller"))
                .withAnnotations(Map.of(LEASE_ANNOTATION, hex))
                .withResourceVersion(
                        current == null ? null : current.getMetadata().getResourceVersion())
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("broker-" + brokerId)
                .withAcquireTime(now)
                .withRenewTime(now)
                .withLeaseTransitions(transitions)
                .endSpec()
                .build();
        try {
            if (current == null) {
                call(() -> client.leases().inNamespace(namespace).resource(next).create(), "take the controller lease");
            } else {
                call(() -> client.leases().inNamespace(namespace).resource(next).update(), "take the controller lease");
            }
            return Attempt.LEADS;
        } catch (CoordinationException e) {
            if (code(e) == 409 || code(e) == 404) {
                return Attempt.WAITS; // another broker was faster
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- assignment, topics, epochs

    @Override
    public Versioned<Assignment> assignment() {
        SharedState s = read();
        return new Versioned<>(s.assignment, s.assignmentVersion);
    }

    @Override
    public boolean compareAndSetAssignment(long expectedVersion, Assignment next) {
        return update("write the assignment", s -> {
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
        return new TreeMap<>(read().topics);
    }

    @Override
    public void publishTopic(String topic, int partitions) {
        update("publish topic " + topic, s -> s.topics.put(topic, partitions));
    }

    @Override
    public void unpublishTopic(String topic) {
        update("unpublish topic " + topic, s -> s.topics.remove(topic));
    }

    @Override
    public Versioned<Integer> epoch(TopicPartition tp) {
        SharedState.Epoch e = read().epochs.get(SharedState.key(tp));
        return e == null ? new Versioned<>(0, 0) : new Versioned<>(e.epoch(), e.version());
    }

    @Override
    public boolean claim(TopicPartition tp, long expectedEpochVersion, int nextEpoch, int brokerId, long lease) {
        Set<Long> live = liveLeases();
        String key = SharedState.key(tp);
        return update("claim " + tp, s -> {
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
        update("release " + tp, s -> {
            SharedState.Holder h = s.holders.get(key);
            return h != null && h.broker() == brokerId && s.holders.remove(key) != null;
        });
    }

    @Override
    public OptionalInt holder(TopicPartition tp) {
        SharedState.Holder h = read().holders.get(SharedState.key(tp));
        return h != null && liveLeases().contains(h.lease()) ? OptionalInt.of(h.broker()) : OptionalInt.empty();
    }

    @Override
    public long allocateProducerIdBlock(long size) {
        return update("reserve producer ids", s -> {
            long start = s.nextProducerId;
            s.nextProducerId = start + size;
            return start;
        });
    }

    // ---------------------------------------------------------------- watching

    /**
     * Watches the ConfigMap (every change) and the Leases (added or deleted: membership changes, not each
     * renewal, which would wake every broker every ttl/4). A Lease that merely goes silent makes no event:
     * the caller's periodic pass notices it.
     */
    @Override
    public AutoCloseable watch(Runnable onChange, Runnable onLost) {
        Watch state = call(
                () -> stateMap().watch(new Watcher<ConfigMap>() {
                    @Override
                    public void eventReceived(Action action, ConfigMap resource) {
                        onChange.run();
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                        onLost.run();
                    }
                }),
                "watch the cluster state");
        Watch leases;
        try {
            leases = call(
                    () -> client.leases()
                            .inNamespace(namespace)
                            .withLabel(CLUSTER_LABEL, prefix)
                            .watch(new Watcher<Lease>() {
                                @Override
                                public void eventReceived(Action action, Lease resource) {
                                    if (action != Action.MODIFIED
                                            || resource.getMetadata().getName().endsWith("-controller")) {
                                        onChange.run();
                                    }
                                }

                                @Override
                                public void onClose(WatcherException cause) {
                                    onLost.run();
                                }
                            }),
                    "watch the leases");
        } catch (RuntimeException e) {
            state.close();
            throw e;
        }
        onChange.run(); // in place
        return () -> {
            state.close();
            leases.close();
        };
    }

    @Override
    public void close() {
        campaigns.shutdownNow();
        pendingCampaigns.forEach(
                f -> f.completeExceptionally(new CoordinationException("the coordination store closed")));
        client.close();
    }

    // ---------------------------------------------------------------- the ConfigMap

    private io.fabric8.kubernetes.client.dsl.Resource<ConfigMap> stateMap() {
        return client.configMaps().inNamespace(namespace).withName(prefix);
    }

    private SharedState read() {
        ConfigMap cm = call(() -> stateMap().get(), "read the cluster state");
        return SharedState.parse(
                cm == null || cm.getData() == null ? null : cm.getData().get(STATE_KEY), configMapName());
    }

    /**
     * Applies {@code change} to the state as read and writes the result by compare-and-set on the ConfigMap's
     * resourceVersion, again from a fresh read on a conflict; writes nothing when {@code change} changed nothing.
     */
    private <T> T update(String what, Function<SharedState, T> change) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ConfigMap cm = call(() -> stateMap().get(), what);
            String before =
                    cm == null || cm.getData() == null ? null : cm.getData().get(STATE_KEY);
            SharedState s = SharedState.parse(before, configMapName());
            T result = change.apply(s);
            String after = s.toJson();
            if (after.equals(before) || (before == null && after.equals(new SharedState().toJson()))) {
                return result;
            }
            try {
                if (cm == null) {
                    ConfigMap created = new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName(prefix)
                            .withLabels(labels("state"))
                            .endMetadata()
                            .withData(Map.of(STATE_KEY, after))
                            .build();
                    call(
                            () -> client.configMaps()
                                    .inNamespace(namespace)
                                    .resource(created)
                                    .create(),
                            what);
                } else {
                    cm.setData(new java.util.HashMap<>(Map.of(STATE_KEY, after)));
                    call(
                            () -> client.configMaps()
                                    .inNamespace(namespace)
                                    .resource(cm)
                                    .update(),
                            what);
                }
                return result;
            } catch (CoordinationException e) {
                if (code(e) != 409 || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                // Another broker wrote in between: redo the change on what it wrote.
            }
        }
    }

    private String configMapName() {
        return "ConfigMap " + namespace + "/" + prefix;
    }

    // ---------------------------------------------------------------- helpers

    private String leaseName(long id) {
        return prefix + "-m-" + Long.toHexString(id);
    }

    private Map<String, String> labels(String role) {
        return Map.of(MANAGED_BY, "kaas", CLUSTER_LABEL, prefix, ROLE_LABEL, role);
    }

    private static Long parseHex(String s) {
        if (s == null || s.isEmpty() || s.length() > 16) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(s, 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static ZonedDateTime now() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    private static int code(CoordinationException e) {
        return e.getCause() instanceof KubernetesClientException k ? k.getCode() : -1;
    }

    private <T> T call(java.util.function.Supplier<T> request, String what) {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            String detail = e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage()
                    : e.getMessage();
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            if (root != e) {
                detail += " (" + root
                        + ")"; // fabric8's message names the operation; the cause says why (refused, TLS, timeout)
            }
            throw new CoordinationException(
                    "cannot " + what + ": " + (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + detail, e);
        }
    }
}
