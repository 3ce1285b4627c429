package io.kaas.cluster;

import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's membership: a lease kept alive by a {@link LeaseKeeper} (the self-fence), the broker's registration
 * under it, and its campaign for controller under the same lease, so that leadership and membership end together.
 * A lost lease never comes back: {@link #join} again makes a new membership, with a new lease and a new campaign.
 *
 * <p>Threads: {@link #join} and {@link #giveUp} run on the caller of {@link ClusterMember#join} or on
 * {@code kaas-cluster}, never at once; renewals run on the {@code leaseThread} given; the fields are volatile, so
 * {@link #mayAcknowledge} may be asked on any thread at the moment of answering.
 */
final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final ClusterStore store;
    private final ClusterConfig config;
    private final LongSupplier nanoClock;
    private final ScheduledExecutorService leaseThread;
    /** Called when something changed that a reconcile must act on: the lease found gone, or this broker elected. */
    private final Runnable onChange;

    private volatile BrokerRegistration self;
    private volatile LeaseKeeper keeper;
    private volatile boolean controller;

    Membership(
            ClusterStore store,
            ClusterConfig config,
            LongSupplier nanoClock,
            ScheduledExecutorService leaseThread,
            Runnable onChange) {
        this.store = store;
        this.config = config;
        this.nanoClock = nanoClock;
        this.leaseThread = leaseThread;
        this.onChange = onChange;
    }

    /**
     * Registers {@code me} under a new lease, starts renewing it and campaigns for controller under it.
     *
     * @throws CoordinationException when the store is unreachable or a live broker holds this id
     */
    void join(BrokerRegistration me) {
        this.self = me;
        long before = nanoClock.getAsLong();
        long lease = store.grantLease(config.leaseTtl());
        if (!store.register(me, lease)) {
            store.revokeLease(lease);
            throw new CoordinationException(
                    "broker id " + me.brokerId() + " is already registered by a live broker in this cluster");
        }
        LeaseKeeper k = new LeaseKeeper(store, lease, config.leaseTtl(), config.margin(), nanoClock, before, onChange);
        k.start(leaseThread);
        keeper = k;
        store.campaign(me.brokerId(), lease).whenComplete((v, t) -> {
            if (t == null && keeper == k && !k.lost()) {
                LOG.info("broker {} is the controller", me.brokerId());
                controller = true;
                onChange.run();
            }
        });
        LOG.info(
                "broker {} joined the cluster (lease {}, TTL {} s)",
                me.brokerId(),
                Long.toHexString(lease),
                config.leaseTtl().toSeconds());
    }

    /** The registration this broker joined with, or null before {@link #join}. */
    BrokerRegistration self() {
        return self;
    }

    int brokerId() {
        return self.brokerId();
    }

    /** The lease this membership holds (its keys vanish with it). */
    long lease() {
        return keeper.lease();
    }

    /** The self-fence: whether a write may be acknowledged now. */
    boolean mayAcknowledge() {
        LeaseKeeper k = keeper;
        return k != null && k.mayAcknowledge();
    }

    /** True once a renewal found the lease gone: everything held under it may already be another's. */
    boolean lost() {
        LeaseKeeper k = keeper;
        return k != null && k.lost();
    }

    boolean isController() {
        return controller;
    }

    /** The lease is gone: no longer the controller, renewals stopped. {@link #join} makes a new membership. */
    void giveUp() {
        controller = false;
        keeper.close();
    }

    /** One renewal now, on the lease thread, for a test that moves the clock (returns once it ran). */
    void renewNow() throws Exception {
        LeaseKeeper k = keeper;
        leaseThread.submit(k::renewOnce).get();
    }

    /** A clean stop: renewals stop and the lease is revoked, so its keys vanish at once instead of after the TTL. */
    void leave() {
        LeaseKeeper k = keeper;
        if (k == null) {
            return;
        }
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
}
