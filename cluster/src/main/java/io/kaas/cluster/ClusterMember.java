package io.kaas.cluster;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.StorageException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker as one of several over a shared data directory: its membership (a lease it keeps, the
 * self-fence), its part in electing the controller and, when elected, the controller's one job (keep the
 * assignment covering every topic's partitions over the live brokers), and taking over the partitions
 * the assignment gives it.
 *
 * <p>A partition moves off a broker in one of two ways. From a broker whose lease the store shows expired,
 * {@code grace} after the controller first saw it gone: the old owner stopped acknowledging before its
 * lease could expire ({@link LeaseKeeper}), and its holder key went with the lease. From a live broker
 * (a newcomer gets its share): the old owner closes the partition and then releases it. Either way no write
 * is acknowledged by two owners: the new owner claims the partition ({@link ClusterStore#claim}: the
 * next epoch, only while nobody holds it) and hands the epoch to the engine ({@link StorageEngine#takeOver}),
 * which records it and starts a segment named with it; late writes of an old owner are never visible.
 *
 * <p>Coordinator slots ({@link CoordinatorSlots}: groups' and transactional ids', as Apache's internal topics'
 * partitions) are assigned, claimed and released the same way, their epoch the coordinator epoch; gaining or losing
 * one is handed to the coordinators ({@link #onCoordinatorSlots}) instead of the engine.
 *
 * <p>Threads (owned here, stopped by {@link #close}): {@code kaas-lease} renews the lease and nothing
 * else (a slow takeover must never delay a renewal); {@code kaas-cluster} runs every reconcile
 * ({@link #reconcile}): on each watch event, every ttl/2 as a safety net, and when a grace period ends.
 */
public final class ClusterMember implements PartitionLeaders, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);

    private final ClusterStore store;
    private final ClusterConfig config;
    private final StorageEngine engine;
    private final LongSupplier nanoClock;
    private final ScheduledExecutorService leaseThread =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-lease", true));
    private final ScheduledExecutorService clusterThread =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-cluster", true));
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    /** Controller only (kaas-cluster): when each broker holding partitions was first seen gone. */
    private final Map<Integer, Long> goneSince = new HashMap<>();

    private volatile BrokerRegistration self;
    private volatile LeaseKeeper keeper;
    private volatile boolean controller;
    private volatile View view = new View(Map.of(), Assignment.EMPTY);
    private AutoCloseable watch;
    private volatile boolean closed;
    /** kaas-cluster only: the coordinator slots this broker holds, with the coordinator epoch it claimed each in. */
    private final Map<TopicPartition, Integer> heldSlots = new HashMap<>();

    private volatile CoordinatorSlots.Listener slotListener = new CoordinatorSlots.Listener() {
        @Override
        public void gained(CoordinatorSlots kind, int slot, int epoch) {}

        @Override
        public void lost(CoordinatorSlots kind, int slot) {}
    };

    /** What Metadata answers from: the live brokers and the assignment, as last read. */
    private record View(Map<Integer, BrokerRegistration> brokers, Assignment assignment) {}

    public ClusterMember(ClusterStore store, ClusterConfig config, StorageEngine engine, LongSupplier nanoClock) {
        this.store = store;
        this.config = config;
        this.engine = engine;
        this.nanoClock = nanoClock;
    }

    /**
     * Registers {@code me} under a new lease, starts renewing it, watches the store, campaigns for
     * controller, and takes over what the assignment already gives this broker (before returning, so a
     * broker that answers is one that serves its partitions).
     *
     * @throws CoordinationException when the store is unreachable or a live broker holds this id
     */
    public synchronized void join(BrokerRegistration me) {
        this.self = me;
        startMembership();
        watchStore();
        clusterThread.scheduleWithFixedDelay(
                this::queueReconcile,
                config.leaseTtl().toMillis() / 2,
                config.leaseTtl().toMillis() / 2,
                TimeUnit.MILLISECONDS);
        runOnClusterThread(this::reconcile);
    }

    private void startMembership() {
        long before = nanoClock.getAsLong();
        long lease = store.grantLease(config.leaseTtl());
        if (!store.register(self, lease)) {
            store.revokeLease(lease);
            throw new CoordinationException(
                    "broker id " + self.brokerId() + " is already registered by a live broker in this cluster");
        }
        LeaseKeeper k = new LeaseKeeper(
                store, lease, config.leaseTtl(), config.margin(), nanoClock, before, this::queueReconcile);
        k.start(leaseThread);
        keeper = k;
        store.campaign(self.brokerId(), lease).whenComplete((v, t) -> {
            if (t == null && keeper == k && !k.lost()) {
                LOG.info("broker {} is the controller", self.brokerId());
                controller = true;
                queueReconcile();
            }
        });
        LOG.info(
                "broker {} joined the cluster (lease {}, TTL {} s)",
                self.brokerId(),
                Long.toHexString(lease),
                config.leaseTtl().toSeconds());
    }

    private void watchStore() {
        try {
            watch = store.watch(this::queueReconcile, () -> {
                if (!closed) {
                    LOG.warn("the coordination store's watch ended; re-watching at the next reconcile");
                    watch = null;
                }
            });
        } catch (CoordinationException e) {
            LOG.warn("cannot watch the coordination store: {}", e.getMessage());
        }
    }

    /**
     * Tells {@code listener} (on {@code kaas-cluster}) of each coordinator slot this broker gains, after claiming it in
     * the next coordinator epoch and before serving it, and of each it loses, before releasing it (or, its lease lost,
     * before joining again), so the next holder loads everything this one wrote.
     */
    public void onCoordinatorSlots(CoordinatorSlots.Listener listener) {
        slotListener = listener;
    }

    /** The self-fence: whether a write may be acknowledged now. */
    public boolean mayAcknowledge() {
        LeaseKeeper k = keeper;
        return k != null && k.mayAcknowledge();
    }

    public boolean isController() {
        return controller;
    }

    private void queueReconcile() {
        if (!closed && reconcileQueued.compareAndSet(false, true)) {
            try {
                clusterThread.execute(() -> {
                    reconcileQueued.set(false);
                    reconcile();
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    private void runOnClusterThread(Runnable r) {
        try {
            clusterThread.submit(r).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    /**
     * One pass (kaas-cluster only): rejoin after a lost lease, publish local topics, (controller) rebalance,
     * then take over what is ours and let go of what is not.
     */
    private void reconcile() {
        if (closed) {
            return;
        }
        try {
            if (keeper.lost()) {
                lostLease();
                return;
            }
            if (watch == null) {
                watchStore();
            }
            Set<TopicPartition> heldBefore = engine.taken().keySet();
            Map<String, Integer> topics = publishTopics();
            // Partitions of a topic another broker is deleting, which the refresh just closed: let go of them too.
            for (TopicPartition tp : heldBefore) {
                if (!engine.taken().containsKey(tp) && engine.topic(tp.topic()).isEmpty()) {
                    store.release(tp, self.brokerId());
                }
            }
            finishDeletions(topics);
            Map<Integer, BrokerRegistration> live = store.brokers();
            Versioned<Assignment> assignment = store.assignment();
            if (controller) {
                assignment = rebalance(assignment, topics, live);
            }
            view = new View(live, assignment.value());
            if (mayAcknowledge()) {
                adoptAssignment(assignment.value());
            }
        } catch (RuntimeException e) {
            if (closed || e instanceof StorageException se && se.kind() == StorageException.Kind.CLOSED) {
                // Stopping: an interrupted call to the store is expected, and the broker closes its engine
                // before this member (the lease is kept until every partition is closed cleanly).
                return;
            }
            if (e instanceof CoordinationException) {
                LOG.warn("cluster reconcile failed (retried): {}", e.getMessage());
            } else {
                LOG.error("cluster reconcile failed (retried)", e);
            }
        }
    }

    /** The lease is gone: everything this broker held may already be another's. Give it all up, then join anew. */
    private void lostLease() {
        controller = false;
        keeper.close(); // its renewals stop; startMembership starts a keeper of the new lease
        // Another broker may hold these slots already; coming back as their holder later re-reads what it wrote.
        for (TopicPartition slot : heldSlots.keySet()) {
            CoordinatorSlots kind = CoordinatorSlots.of(slot.topic()).orElseThrow();
            slotListener.lost(kind, slot.partition());
        }
        heldSlots.clear();
        for (TopicPartition tp : engine.taken().keySet()) {
            engine.abandon(tp);
        }
        LOG.warn("broker {}: lease lost, partitions given up; joining again", self.brokerId());
        try {
            startMembership();
        } catch (CoordinationException e) {
            LOG.warn("broker {}: cannot join again yet: {}", self.brokerId(), e.getMessage());
        }
    }

    /**
     * Deletes {@code topic} across the cluster: marked deleted on the volume (every other broker forgets it at its
     * next reconcile, closes what it held of it and lets go), unpublished, then, once no broker holds any of its
     * partitions, its directory removed. Waits up to {@code wait} for the last step; past that the directory is
     * removed by a later reconcile here or on another broker ({@link #finishDeletions}). No owner recreates it:
     * an engine never opens a topic marked deleted, and the controller's next assignment drops it.
     */
    public void deleteTopic(String topic, Duration wait) {
        int partitions = engine.topic(topic).map(TopicInfo::partitions).orElse(0);
        Set<TopicPartition> mine = new HashSet<>();
        engine.taken().keySet().stream().filter(tp -> tp.topic().equals(topic)).forEach(mine::add);
        engine.markTopicDeleted(topic); // closes what this broker held of it
        mine.forEach(tp -> store.release(tp, self.brokerId()));
        store.unpublishTopic(topic);
        long deadline = nanoClock.getAsLong() + wait.toNanos();
        while (held(topic, partitions)) {
            if (nanoClock.getAsLong() > deadline) {
                LOG.info("topic {}: marked deleted; its directory goes once its owners let go", topic);
                return;
            }
            try {
                Thread.sleep(50); // the owners close and release at their next reconcile (a watch event away)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        engine.removeDeletedTopic(topic);
    }

    private boolean held(String topic, int partitions) {
        for (int p = 0; p < partitions; p++) {
            if (store.holder(new TopicPartition(topic, p)).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** Topics marked deleted on the volume: unpublished (a deleter may have died first), removed once nobody holds them. */
    private void finishDeletions(Map<String, Integer> published) {
        engine.topicsBeingDeleted().forEach((topic, partitions) -> {
            if (published.containsKey(topic)) {
                store.unpublishTopic(topic);
            }
            if (!held(topic, partitions)) {
                engine.removeDeletedTopic(topic);
                LOG.info("broker {}: removed the directory of deleted topic {}", self.brokerId(), topic);
            }
        });
    }

    /** Topics in the shared directory the store does not list yet (created here, or by a broker that died before publishing). */
    private Map<String, Integer> publishTopics() {
        engine.refreshTopics();
        Map<String, Integer> published = store.topics();
        boolean changed = false;
        for (TopicInfo t : engine.topics()) {
            if (published.getOrDefault(t.name(), 0) < t.partitions()) {
                store.publishTopic(t.name(), t.partitions());
                changed = true;
            }
        }
        return changed ? store.topics() : published;
    }

    /** Controller: the next assignment, written by compare-and-set (a lost race is redone at the next pass). */
    private Versioned<Assignment> rebalance(
            Versioned<Assignment> current, Map<String, Integer> topics, Map<Integer, BrokerRegistration> live) {
        long now = nanoClock.getAsLong();
        Set<Integer> holders = new HashSet<>();
        current.value().owners().values().forEach(holders::addAll);
        holders.remove(Assignment.UNASSIGNED);
        goneSince.keySet().retainAll(holders);
        Set<Integer> keep = new HashSet<>(live.keySet());
        long graceNanos = config.grace().toNanos();
        for (int b : holders) {
            if (!live.containsKey(b)) {
                long since = goneSince.computeIfAbsent(b, x -> now);
                long left = since + graceNanos - now;
                if (left > 0) {
                    keep.add(b);
                    if (!closed) {
                        clusterThread.schedule(this::queueReconcile, left / 1_000_000 + 1, TimeUnit.MILLISECONDS);
                    }
                }
            } else {
                goneSince.remove(b);
            }
        }
        Assignment next = current.value().rebalancedWithSlots(topics, keep, live.keySet());
        if (next == current.value()) {
            return current;
        }
        if (store.compareAndSetAssignment(current.version(), next)) {
            LOG.info("controller {}: assignment now {}", self.brokerId(), next.owners());
            return store.assignment();
        }
        queueReconcile();
        return current;
    }

    /** Takes over partitions assigned here and not yet held; releases held ones assigned elsewhere. */
    private void adoptAssignment(Assignment a) {
        Map<TopicPartition, Integer> held = engine.taken();
        for (TopicPartition tp : held.keySet()) {
            OptionalInt owner = a.owner(tp);
            if (owner.isEmpty() || owner.getAsInt() != self.brokerId()) {
                LOG.info("broker {}: {} is assigned elsewhere; releasing it", self.brokerId(), tp);
                engine.release(tp); // closed cleanly (fsync, state files) before the next owner may claim it
                store.release(tp, self.brokerId());
            }
        }
        for (Map.Entry<String, List<Integer>> e : a.owners().entrySet()) {
            if (CoordinatorSlots.of(e.getKey()).isPresent()) {
                continue;
            }
            for (int p = 0; p < e.getValue().size(); p++) {
                TopicPartition tp = new TopicPartition(e.getKey(), p);
                if (e.getValue().get(p) == self.brokerId() && !held.containsKey(tp) && mayAcknowledge()) {
                    takeOver(tp);
                }
            }
        }
        adoptSlots(a);
    }

    /**
     * The coordinator slots' part of {@link #adoptAssignment}: a slot assigned elsewhere is given up (nothing more of it
     * is written here) and then released; one assigned here is claimed in the next coordinator epoch (only while no
     * broker holds it: its last holder gave it up and released it, or its lease expired, after its self-fence closed),
     * then loaded.
     */
    private void adoptSlots(Assignment a) {
        for (java.util.Iterator<Map.Entry<TopicPartition, Integer>> it =
                        heldSlots.entrySet().iterator();
                it.hasNext(); ) {
            TopicPartition slot = it.next().getKey();
            OptionalInt owner = a.owner(slot);
            if (owner.isEmpty() || owner.getAsInt() != self.brokerId()) {
                LOG.debug("broker {}: coordinator slot {} is assigned elsewhere; giving it up", self.brokerId(), slot);
                slotListener.lost(CoordinatorSlots.of(slot.topic()).orElseThrow(), slot.partition());
                it.remove();
                store.release(slot, self.brokerId());
            }
        }
        for (CoordinatorSlots kind : CoordinatorSlots.values()) {
            for (int n = 0; n < kind.slots(); n++) {
                TopicPartition slot = kind.slot(n);
                OptionalInt owner = a.owner(slot);
                if (owner.isPresent()
                        && owner.getAsInt() == self.brokerId()
                        && !heldSlots.containsKey(slot)
                        && mayAcknowledge()) {
                    takeOverSlot(kind, slot);
                }
            }
        }
    }

    private void takeOverSlot(CoordinatorSlots kind, TopicPartition slot) {
        Versioned<Integer> epoch = store.epoch(slot);
        int next = epoch.value() + 1;
        if (!store.claim(slot, epoch.version(), next, self.brokerId(), keeper.lease())) {
            return; // still held by its last holder (its release's watch event brings us back) or a lost race
        }
        try {
            slotListener.gained(kind, slot.partition(), next);
            heldSlots.put(slot, next);
            LOG.debug("broker {}: coordinates {} in coordinator epoch {}", self.brokerId(), slot, next);
        } catch (RuntimeException e) {
            LOG.error("broker {}: cannot load coordinator slot {}: {}", self.brokerId(), slot, e.toString());
            slotListener.lost(kind, slot.partition());
            store.release(slot, self.brokerId());
        }
    }

    private void takeOver(TopicPartition tp) {
        Versioned<Integer> epoch = store.epoch(tp);
        int next = epoch.value() + 1;
        if (!store.claim(tp, epoch.version(), next, self.brokerId(), keeper.lease())) {
            // Still held (its last owner has not let go; the release's watch event brings us back) or a lost race.
            return;
        }
        try {
            engine.takeOver(tp, next);
            LOG.info("broker {}: took over {} in epoch {}", self.brokerId(), tp, next);
        } catch (StorageException e) {
            LOG.error("broker {}: cannot take over {} in epoch {}: {}", self.brokerId(), tp, next, e.getMessage());
            store.release(tp, self.brokerId());
        }
    }

    // ---------------------------------------------------------------- PartitionLeaders (Metadata)

    /**
     * As Apache answers Metadata: each other broker's endpoint of the listener {@code me} is (the one the client
     * came in on), or, where that broker registered no such listener, its first advertised one.
     */
    @Override
    public List<BrokerNode> brokers(BrokerNode me) {
        List<BrokerNode> out = new ArrayList<>();
        out.add(me);
        String listener = listenerOf(me);
        for (BrokerRegistration b : view.brokers().values()) {
            if (b.brokerId() != me.nodeId()) {
                java.util.Optional<io.kaas.cluster.Endpoint> e =
                        listener == null ? java.util.Optional.empty() : b.endpoint(listener);
                out.add(e.map(x -> new BrokerNode(b.brokerId(), x.host(), x.port(), me.clusterId()))
                        .orElseGet(() -> new BrokerNode(b.brokerId(), b.host(), b.port(), me.clusterId())));
            }
        }
        return out;
    }

    /** The name of this broker's listener advertised at {@code me}'s address, or null (not joined yet). */
    private String listenerOf(BrokerNode me) {
        BrokerRegistration s = self;
        if (s == null) {
            return null;
        }
        for (String text : s.endpoints()) {
            io.kaas.cluster.Endpoint e = io.kaas.cluster.Endpoint.parse(text);
            if (e.host().equals(me.host()) && e.port() == me.port()) {
                return e.listenerName();
            }
        }
        return null;
    }

    /** A live broker's registration as last read (its listeners' endpoints among it), or empty when it is not live. */
    public java.util.Optional<BrokerRegistration> registration(int brokerId) {
        return java.util.Optional.ofNullable(view.brokers().get(brokerId));
    }

    @Override
    public OptionalInt leader(TopicPartition tp, BrokerNode me) {
        View v = view;
        OptionalInt owner = v.assignment().owner(tp);
        if (owner.isEmpty() || (owner.getAsInt() != me.nodeId() && !v.brokers().containsKey(owner.getAsInt()))) {
            return OptionalInt.empty();
        }
        return owner;
    }

    @Override
    public int groupCoordinator(int slot, BrokerNode me) {
        return leader(CoordinatorSlots.GROUP.slot(slot), me).orElse(-1);
    }

    @Override
    public int transactionCoordinator(int slot, BrokerNode me) {
        return leader(CoordinatorSlots.TRANSACTION.slot(slot), me).orElse(-1);
    }

    @Override
    public int controllerId(BrokerNode me) {
        return view.brokers().keySet().stream()
                .mapToInt(Integer::intValue)
                .min()
                .orElse(me.nodeId());
    }

    /**
     * Stops: no more reconciles or renewals, then the lease is revoked (a clean stop hands the partitions
     * on at once instead of after the TTL). Call it after the engine closed, so the partitions' files are
     * written while the lease still holds.
     */
    @Override
    public synchronized void close() {
        closed = true;
        clusterThread.shutdownNow();
        leaseThread.shutdownNow();
        try {
            clusterThread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watch != null) {
            try {
                watch.close();
            } catch (Exception e) {
                LOG.debug("closing the watch", e);
            }
        }
        LeaseKeeper k = keeper;
        if (k != null) {
            k.close();
            try {
                store.revokeLease(k.lease());
            } catch (CoordinationException e) {
                LOG.warn(
                        "could not revoke lease {} (it expires on its own): {}",
                        Long.toHexString(k.lease()),
                        e.getMessage());
            }
        }
        store.close();
    }
}
