package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * A {@link ClusterStore} in memory, on a clock the test moves: the whole interface over maps, with revisions for
 * every compare-and-set and leases that expire when the clock passes their last renewal plus their TTL (judged at
 * every call, as a store would at any moment). Several clients ({@link #client}) share one cluster, as brokers
 * share one etcd; closing a client ends its watches only. {@link #failing} makes every call of every client throw
 * {@link CoordinationException}, as an unreachable store does. It passes {@link ClusterStoreContract}
 * ({@code InMemoryClusterStoreTest}).
 *
 * <p>Thread-safe: one lock over the cluster's state; watch callbacks and campaign completions run on the calling
 * thread after the lock is let go.
 */
public final class InMemoryClusterStore implements ClusterStore {
    private final Cluster cluster;
    private final List<Watcher> watches = new CopyOnWriteArrayList<>();

    private record Lease(long ttlNanos, long renewedAtNanos) {}

    private record Holder(int broker, long lease) {}

    private record Registered(BrokerRegistration broker, long lease) {}

    private record Campaign(int brokerId, long lease, CompletableFuture<Void> elected) {}

    private record Watcher(Runnable onChange, Runnable onLost) {}

    /** The state every client of one cluster shares; guarded by its own monitor. */
    private static final class Cluster {
        final LongSupplier nanoClock;
        final List<InMemoryClusterStore> clients = new CopyOnWriteArrayList<>();
        final Map<Long, Lease> leases = new HashMap<>();
        final Map<Integer, Registered> brokers = new TreeMap<>();
        final Map<String, Integer> topics = new TreeMap<>();
        final Map<TopicPartition, Versioned<Integer>> epochs = new HashMap<>();
        final Map<TopicPartition, Holder> holders = new HashMap<>();
        final List<Campaign> campaigns = new ArrayList<>();
        Versioned<Assignment> assignment = new Versioned<>(Assignment.EMPTY, 0);
        long controllerLease = -1;
        long revision;
        long nextLease = 1;
        long nextProducerId;
        volatile boolean failing;

        Cluster(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
        }
    }

    private InMemoryClusterStore(Cluster cluster) {
        this.cluster = cluster;
        cluster.clients.add(this);
    }

    /** A new cluster, its leases judged on {@code nanoClock}; this is its first client. */
    public static InMemoryClusterStore create(LongSupplier nanoClock) {
        return new InMemoryClusterStore(new Cluster(nanoClock));
    }

    /** Another client of the same cluster (another broker's connection to the same store). */
    public InMemoryClusterStore client() {
        return new InMemoryClusterStore(cluster);
    }

    /** While {@code failing}, every call of every client throws, as when the store cannot be reached. */
    public void failing(boolean failing) {
        cluster.failing = failing;
    }

    /** Expires what the clock says has expired now, telling watchers, as a store does on its own. */
    public void tick() {
        run(() -> null, false);
    }

    // ---------------------------------------------------------------- leases

    @Override
    public long grantLease(Duration ttl) {
        return run(
                () -> {
                    long id = cluster.nextLease++;
                    cluster.leases.put(id, new Lease(ttl.toNanos(), cluster.nanoClock.getAsLong()));
                    return id;
                },
                false);
    }

    @Override
    public Duration renewLease(long lease) {
        return run(
                () -> {
                    Lease l = cluster.leases.get(lease);
                    if (l == null) {
                        return Duration.ZERO;
                    }
                    cluster.leases.put(lease, new Lease(l.ttlNanos(), cluster.nanoClock.getAsLong()));
                    return Duration.ofNanos(l.ttlNanos());
                },
                false);
    }

    @Override
    public void revokeLease(long lease) {
        run(
                () -> {
                    if (cluster.leases.remove(lease) != null) {
                        dropKeysOfDeadLeases();
                    }
                    return null;
                },
                true);
    }

    // ---------------------------------------------------------------- membership and the controller

    @Override
    public boolean register(BrokerRegistration broker, long lease) {
        return run(
                () -> {
                    Registered r = cluster.brokers.get(broker.brokerId());
                    if ((r != null && r.lease() != lease) || !cluster.leases.containsKey(lease)) {
                        return false;
                    }
                    cluster.brokers.put(broker.brokerId(), new Registered(broker, lease));
                    cluster.revision++;
                    return true;
                },
                true);
    }

    @Override
    public Map<Integer, BrokerRegistration> brokers() {
        return run(
                () -> {
                    Map<Integer, BrokerRegistration> out = new TreeMap<>();
                    cluster.brokers.forEach((id, r) -> out.put(id, r.broker()));
                    return out;
                },
                false);
    }

    @Override
    public CompletableFuture<Void> campaign(int brokerId, long lease) {
        CompletableFuture<Void> elected = new CompletableFuture<>();
        run(
                () -> {
                    cluster.campaigns.add(new Campaign(brokerId, lease, elected));
                    return null;
                },
                false);
        return elected;
    }

    // ---------------------------------------------------------------- assignment, topics, epochs

    @Override
    public Versioned<Assignment> assignment() {
        return run(() -> cluster.assignment, false);
    }

    @Override
    public boolean compareAndSetAssignment(long expectedVersion, Assignment next) {
        return run(
                () -> {
                    if (cluster.assignment.version() != expectedVersion) {
                        return false;
                    }
                    cluster.assignment = new Versioned<>(next, ++cluster.revision);
                    return true;
                },
                true);
    }

    @Override
    public Map<String, Integer> topics() {
        return run(() -> new TreeMap<>(cluster.topics), false);
    }

    @Override
    public void publishTopic(String topic, int partitions) {
        run(() -> cluster.topics.put(topic, partitions), true);
    }

    @Override
    public void unpublishTopic(String topic) {
        run(() -> cluster.topics.remove(topic), true);
    }

    @Override
    public Versioned<Integer> epoch(TopicPartition tp) {
        return run(() -> cluster.epochs.getOrDefault(tp, new Versioned<>(0, 0)), false);
    }

    @Override
    public boolean claim(TopicPartition tp, long expectedEpochVersion, int nextEpoch, int brokerId, long lease) {
        return run(
                () -> {
                    long version = cluster.epochs
                            .getOrDefault(tp, new Versioned<>(0, 0L))
                            .version();
                    if (version != expectedEpochVersion
                            || cluster.holders.containsKey(tp)
                            || !cluster.leases.containsKey(lease)) {
                        return false;
                    }
                    cluster.epochs.put(tp, new Versioned<>(nextEpoch, ++cluster.revision));
                    cluster.holders.put(tp, new Holder(brokerId, lease));
                    return true;
                },
                true);
    }

    @Override
    public void release(TopicPartition tp, int brokerId) {
        run(
                () -> {
                    Holder h = cluster.holders.get(tp);
                    if (h != null && h.broker() == brokerId) {
                        cluster.holders.remove(tp);
                    }
                    return null;
                },
                true);
    }

    @Override
    public OptionalInt holder(TopicPartition tp) {
        return run(
                () -> {
                    Holder h = cluster.holders.get(tp);
                    return h == null ? OptionalInt.empty() : OptionalInt.of(h.broker());
                },
                false);
    }

    @Override
    public long allocateProducerIdBlock(long size) {
        return run(
                () -> {
                    long start = cluster.nextProducerId;
                    cluster.nextProducerId = start + size;
                    return start;
                },
                false);
    }

    // ---------------------------------------------------------------- watching

    @Override
    public AutoCloseable watch(Runnable onChange, Runnable onLost) {
        run(() -> null, false); // reachable, or the watch fails as a store's would
        Watcher w = new Watcher(onChange, onLost);
        watches.add(w);
        onChange.run(); // in place
        return () -> watches.remove(w);
    }

    @Override
    public void close() {
        cluster.clients.remove(this);
        List<Watcher> ended = new ArrayList<>(watches);
        watches.clear();
        ended.forEach(w -> w.onLost().run());
    }

    // ---------------------------------------------------------------- the one lock

    private interface Step<T> {
        T apply();
    }

    /**
     * Runs {@code step} under the cluster's lock after expiring what the clock says has expired; then, outside the
     * lock, completes the campaigns that were decided and, when {@code writes} or a lease expired, tells every
     * watcher of every client.
     */
    private <T> T run(Step<T> step, boolean writes) {
        if (cluster.failing) {
            throw new CoordinationException("the coordination store cannot be reached (failing on purpose)");
        }
        List<Runnable> after = new ArrayList<>();
        T result;
        boolean changed;
        synchronized (cluster) {
            long before = cluster.revision;
            int leasesBefore = cluster.leases.size();
            expireLeases();
            result = step.apply();
            changed = writes || cluster.revision != before || cluster.leases.size() != leasesBefore;
            decideCampaigns(after);
        }
        after.forEach(Runnable::run);
        if (changed) {
            for (InMemoryClusterStore c : cluster.clients) {
                c.watches.forEach(w -> w.onChange().run());
            }
        }
        return result;
    }

    /** Holds the lock. */
    private void expireLeases() {
        long now = cluster.nanoClock.getAsLong();
        if (cluster.leases.values().removeIf(l -> now - (l.renewedAtNanos() + l.ttlNanos()) >= 0)) {
            dropKeysOfDeadLeases();
        }
    }

    /** Holds the lock: the keys written under a lease go with it. */
    private void dropKeysOfDeadLeases() {
        cluster.brokers.values().removeIf(r -> !cluster.leases.containsKey(r.lease()));
        cluster.holders.values().removeIf(h -> !cluster.leases.containsKey(h.lease()));
        if (!cluster.leases.containsKey(cluster.controllerLease)) {
            cluster.controllerLease = -1;
        }
        cluster.revision++;
    }

    /**
     * Holds the lock: a campaign whose lease is gone fails (as etcd's does); the first live one is elected once no
     * live lease holds the controller. Completions are queued to {@code after}, run once the lock is let go.
     */
    private void decideCampaigns(List<Runnable> after) {
        for (Iterator<Campaign> it = cluster.campaigns.iterator(); it.hasNext(); ) {
            Campaign c = it.next();
            if (!cluster.leases.containsKey(c.lease())) {
                it.remove();
                after.add(() -> c.elected().completeExceptionally(new CoordinationException("lease gone")));
            } else if (cluster.controllerLease == -1 || cluster.controllerLease == c.lease()) {
                it.remove();
                cluster.controllerLease = c.lease();
                after.add(() -> c.elected().complete(null));
            }
        }
    }

    /** For a test's failure message: the live leases and what each holds. */
    @Override
    public String toString() {
        synchronized (cluster) {
            Map<Long, List<Object>> held = new LinkedHashMap<>();
            cluster.leases.keySet().forEach(l -> held.put(l, new ArrayList<>()));
            cluster.brokers.forEach((id, r) -> held.get(r.lease()).add("broker " + id));
            cluster.holders.forEach((tp, h) -> held.get(h.lease()).add(tp));
            return "InMemoryClusterStore" + held;
        }
    }
}
