package io.kaas.cluster;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.StorageException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker as one of several over a shared data directory: its membership ({@link Membership}: a lease it keeps,
 * the self-fence, the campaign), when elected the controller's one job ({@link ControllerRebalance}), the topics of
 * the shared directory ({@link SharedTopics}), and following the assignment ({@link Ownership}): taking over the
 * partitions and coordinator slots it gives this broker, letting go of the others. This class runs them: one
 * reconcile at a time, on its own thread.
 *
 * <p>A partition moves off a broker in one of two ways. From a broker whose lease the store shows expired,
 * {@code grace} after the controller first saw it gone: the old owner stopped acknowledging before its lease could
 * expire ({@link LeaseKeeper}), and its holder key went with the lease. From a live broker (a newcomer gets its
 * share): the old owner closes the partition and then releases it. Either way no write is acknowledged by two
 * owners: the new owner claims the partition ({@link ClusterStore#claim}: the next epoch, only while nobody holds
 * it) and hands the epoch to the engine ({@link StorageEngine#takeOver}), which records it and starts a segment
 * named with it; late writes of an old owner are never visible. Coordinator slots ({@link CoordinatorSlots}) are
 * assigned, claimed and released the same way, their epoch the coordinator epoch; gaining or losing one is handed
 * to the coordinators ({@link #onCoordinatorSlots}) instead of the engine.
 *
 * <p>Threads (owned here, stopped by {@link #close}): {@code kaas-lease} renews the lease and nothing else (a slow
 * takeover must never delay a renewal); {@code kaas-cluster} runs every reconcile ({@link #reconcile}): on each
 * watch event, every ttl/2 as a safety net, and when a grace period ends. The store's callbacks only queue one.
 */
public final class ClusterMember implements PartitionLeaders, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);

    private final ClusterStore store;
    private final ClusterConfig config;
    private final StorageEngine engine;
    private final ScheduledExecutorService leaseThread =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-lease", true));
    private final ScheduledExecutorService clusterThread =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-cluster", true));
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    private final Membership membership;
    private final Ownership ownership;
    private final SharedTopics topics;
    private final ControllerRebalance controller;
    private final MetadataView metadata;

    /** The store's watch, or null when it ended (re-watched at the next reconcile); kaas-cluster, and close. */
    private volatile AutoCloseable watch;

    private volatile boolean closed;

    public ClusterMember(ClusterStore store, ClusterConfig config, StorageEngine engine, LongSupplier nanoClock) {
        this.store = store;
        this.config = config;
        this.engine = engine;
        this.membership = new Membership(store, config, nanoClock, leaseThread, this::queueReconcile);
        this.ownership = new Ownership(store, engine, membership);
        this.topics = new SharedTopics(store, engine, membership, nanoClock);
        this.controller = new ControllerRebalance(store, config, nanoClock, this::reconcileIn);
        this.metadata = new MetadataView(membership::self);
    }

    /**
     * Registers {@code me} under a new lease, starts renewing it, watches the store, campaigns for controller, and
     * takes over what the assignment already gives this broker (before returning, so a broker that answers is one
     * that serves its partitions).
     *
     * @throws CoordinationException when the store is unreachable or a live broker holds this id
     */
    public synchronized void join(BrokerRegistration me) {
        membership.join(me);
        watchStore();
        long every = config.leaseTtl().toMillis() / 2;
        clusterThread.scheduleWithFixedDelay(this::queueReconcile, every, every, TimeUnit.MILLISECONDS);
        runOnClusterThread(this::reconcile);
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
        ownership.onCoordinatorSlots(listener);
    }

    /** The self-fence: whether a write may be acknowledged now. */
    public boolean mayAcknowledge() {
        return membership.mayAcknowledge();
    }

    public boolean isController() {
        return membership.isController();
    }

    /**
     * Deletes {@code topic} across the cluster, waiting up to {@code wait} for its owners to let go before its
     * directory is removed (else a later reconcile removes it): {@link SharedTopics#delete}.
     */
    public void deleteTopic(String topic, Duration wait) {
        topics.delete(topic, wait);
    }

    /** A live broker's registration as last read (its listeners' endpoints among it), or empty when it is not live. */
    public Optional<BrokerRegistration> registration(int brokerId) {
        return metadata.registration(brokerId);
    }

    private void queueReconcile() {
        if (!closed && reconcileQueued.compareAndSet(false, true)) {
            try {
                clusterThread.execute(() -> {
                    reconcileQueued.set(false);
                    reconcile();
                });
            } catch (RejectedExecutionException e) {
                // closing
            }
        }
    }

    /** A reconcile in {@code nanos} (a grace period ends), or queued now (0). */
    private void reconcileIn(long nanos) {
        if (nanos <= 0) {
            queueReconcile();
        } else if (!closed) {
            try {
                clusterThread.schedule(this::queueReconcile, nanos / 1_000_000 + 1, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closing
            }
        }
    }

    private void runOnClusterThread(Runnable r) {
        try {
            clusterThread.submit(r).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    /**
     * One pass (kaas-cluster only): rejoin after a lost lease, publish local topics, (controller) rebalance, then
     * take over what is ours and let go of what is not.
     */
    private void reconcile() {
        if (closed) {
            return;
        }
        try {
            if (membership.lost()) {
                lostLease();
                return;
            }
            if (watch == null) {
                watchStore();
            }
            Set<TopicPartition> heldBefore = engine.taken().keySet();
            Map<String, Integer> published = topics.publish();
            topics.releaseClosed(heldBefore);
            topics.finishDeletions(published);
            Map<Integer, BrokerRegistration> live = store.brokers();
            Versioned<Assignment> assignment = store.assignment();
            if (membership.isController()) {
                assignment = controller.rebalance(assignment, published, live, membership.brokerId());
            }
            metadata.update(live, assignment.value());
            if (membership.mayAcknowledge()) {
                ownership.adopt(assignment.value());
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
        membership.giveUp(); // its renewals stop; join starts a keeper of the new lease
        ownership.abandonAll();
        int me = membership.brokerId();
        LOG.warn("broker {}: lease lost, partitions given up; joining again", me);
        try {
            membership.join(membership.self());
        } catch (CoordinationException e) {
            LOG.warn("broker {}: cannot join again yet: {}", me, e.getMessage());
        }
    }

    // ---------------------------------------------------------------- for tests on a fake clock

    /** One reconcile on {@code kaas-cluster}, returning once it ran. */
    void reconcileNow() {
        runOnClusterThread(this::reconcile);
    }

    /** One lease renewal on {@code kaas-lease}, returning once it ran. */
    void renewLeaseNow() throws Exception {
        membership.renewNow();
    }

    /** The coordinator slots this broker holds, with their coordinator epochs (read on {@code kaas-cluster}). */
    Map<TopicPartition, Integer> heldSlots() throws Exception {
        return clusterThread.submit(ownership::heldSlots).get();
    }

    // ---------------------------------------------------------------- PartitionLeaders (Metadata)

    @Override
    public List<BrokerNode> brokers(BrokerNode me) {
        return metadata.brokers(me);
    }

    @Override
    public OptionalInt leader(TopicPartition tp, BrokerNode me) {
        return metadata.leader(tp, me);
    }

    @Override
    public int groupCoordinator(int slot, BrokerNode me) {
        return metadata.groupCoordinator(slot, me);
    }

    @Override
    public int transactionCoordinator(int slot, BrokerNode me) {
        return metadata.transactionCoordinator(slot, me);
    }

    @Override
    public int controllerId(BrokerNode me) {
        return metadata.controllerId(me);
    }

    /**
     * Stops: no more reconciles or renewals, then the lease is revoked (a clean stop hands the partitions on at once
     * instead of after the TTL). Call it after the engine closed, so the partitions' files are written while the
     * lease still holds.
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
        AutoCloseable w = watch;
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                LOG.debug("closing the watch", e);
            }
        }
        membership.leave();
        store.close();
    }
}
