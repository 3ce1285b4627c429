package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kaas.cluster.CoordinationException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The controller election on the Lease {@code kaas-ID-controller}: holderIdentity = broker-N, annotation
 * {@code kaas.io/lease} = its membership lease, valid while that one lives. A campaign retries every 500 ms on
 * {@code kaas-k8s-campaign} (owned here, stopped by {@link #close}) and takes the Lease, by compare-and-set, once it is
 * free or names a dead membership lease.
 *
 * <p>Why not fabric8's {@code LeaderElector}: it renews a Lease of its own, which could be lost while the membership
 * lease holds (or the reverse); here the controller is whoever holds a live membership lease named in the
 * controller Lease, so leadership and membership end together, as with etcd's election. Thread-safe.
 */
final class ControllerCampaign implements AutoCloseable {
    private final KubernetesCalls api;
    private final MembershipLeases leases;
    private final ScheduledExecutorService campaigns =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-k8s-campaign", true));
    private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

    private enum Attempt {
        LEADS,
        WAITS,
        LEASE_GONE
    }

    ControllerCampaign(KubernetesCalls api, MembershipLeases leases) {
        this.api = api;
        this.leases = leases;
    }

    /** Completes once {@code brokerId} leads under {@code lease}; fails when that lease is gone first. */
    CompletableFuture<Void> campaign(int brokerId, long lease) {
        CompletableFuture<Void> elected = new CompletableFuture<>();
        pending.add(elected);
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
                                    pending.remove(elected);
                                    elected.complete(null);
                                }
                                case LEASE_GONE -> {
                                    // As etcd's campaign fails on a revoked lease: otherwise every lost lease would
                                    // leave a campaign polling the API server for good. A new membership campaigns
                                    // anew.
                                    pending.remove(elected);
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
                            pending.remove(elected);
                            elected.completeExceptionally(e);
                        }
                    },
                    0,
                    500,
                    TimeUnit.MILLISECONDS);
        }
        return elected;
    }

    /** One attempt: take the controller Lease if it is free or names a dead membership lease. */
    private Attempt tryToLead(int brokerId, long lease) {
        String name = api.prefix() + "-controller";
        String hex = Long.toHexString(lease);
        Lease current = api.call(() -> api.leases().withName(name).get(), "read the controller lease");
        if (current != null && hex.equals(leaseOf(current))) {
            return Attempt.LEADS;
        }
        Set<Long> live = leases.live();
        if (!live.contains(lease)) {
            return Attempt.LEASE_GONE;
        }
        if (current != null) {
            Long holder = KubernetesCalls.parseHex(leaseOf(current));
            if (holder != null && live.contains(holder)) {
                return Attempt.WAITS;
            }
        }
        ZonedDateTime now = KubernetesCalls.now();
        int transitions = current == null
                        || current.getSpec() == null
                        || current.getSpec().getLeaseTransitions() == null
                ? 0
                : current.getSpec().getLeaseTransitions() + 1;
        Lease next = new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(api.labels("controller"))
                .withAnnotations(Map.of(KubernetesCalls.LEASE_ANNOTATION, hex))
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
                api.call(() -> api.leases().resource(next).create(), "take the controller lease");
            } else {
                api.call(() -> api.leases().resource(next).update(), "take the controller lease");
            }
            return Attempt.LEADS;
        } catch (CoordinationException e) {
            if (KubernetesCalls.code(e) == 409 || KubernetesCalls.code(e) == 404) {
                return Attempt.WAITS; // another broker was faster
            }
            throw e;
        }
    }

    /** The membership lease the controller Lease names, or null. */
    private static String leaseOf(Lease controller) {
        Map<String, String> annotations = controller.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(KubernetesCalls.LEASE_ANNOTATION);
    }

    /** Stops campaigning: every campaign not yet decided fails. */
    @Override
    public void close() {
        campaigns.shutdownNow();
        pending.forEach(f -> f.completeExceptionally(new CoordinationException("the coordination store closed")));
    }
}
