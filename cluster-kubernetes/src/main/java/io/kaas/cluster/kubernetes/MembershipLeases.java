package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kaas.cluster.CoordinationException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.Set;

/**
 * The membership leases as Lease objects ({@code kaas-ID-m-<lease hex>}: holderIdentity = the lease id in hex,
 * leaseDurationSeconds = the TTL, renewTime moved at each renewal by compare-and-set on the resourceVersion).
 * Kubernetes does not expire a Lease: each observer judges it ({@link LeaseObservations}), and the first to find one
 * silent for its whole duration marks it expired by compare-and-set (holderIdentity cleared) and deletes it, so a
 * renewal racing the marking either lands first (the marking fails) or finds the Lease gone (the holder is fenced).
 * Thread-safe.
 */
final class MembershipLeases {
    private static final SecureRandom IDS = new SecureRandom();

    private final KubernetesCalls api;
    private final LeaseObservations observations = new LeaseObservations(System::nanoTime);

    MembershipLeases(KubernetesCalls api) {
        this.api = api;
    }

    /** A new membership Lease of {@code ttl} under a random id (another is drawn when that one is taken). */
    long grant(Duration ttl) {
        while (true) {
            long id = IDS.nextLong() & Long.MAX_VALUE;
            ZonedDateTime now = KubernetesCalls.now();
            Lease lease = new LeaseBuilder()
                    .withNewMetadata()
                    .withName(api.leaseName(id))
                    .withLabels(api.labels("member"))
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(Long.toHexString(id))
                    .withLeaseDurationSeconds((int) Math.max(1, ttl.toSeconds()))
                    .withAcquireTime(now)
                    .withRenewTime(now)
                    .endSpec()
                    .build();
            try {
                api.call(() -> api.leases().resource(lease).create(), "grant a lease");
                return id;
            } catch (CoordinationException e) {
                if (KubernetesCalls.code(e) != 409) {
                    throw e;
                }
                // That random id is taken: draw another.
            }
        }
    }

    /** Moves the Lease's renewTime; its duration, or {@link Duration#ZERO} when it is gone for good. */
    Duration renew(long lease) {
        String hex = Long.toHexString(lease);
        for (int attempt = 0; attempt < 3; attempt++) {
            Lease l = api.call(() -> api.leases().withName(api.leaseName(lease)).get(), "read lease " + hex);
            if (l == null || l.getSpec() == null || !hex.equals(l.getSpec().getHolderIdentity())) {
                return Duration.ZERO; // revoked, or marked expired by an observer: gone for good
            }
            l.getSpec().setRenewTime(KubernetesCalls.now());
            try {
                // Compare-and-set on the resourceVersion just read: an observer's expiry marking in between wins.
                api.call(() -> api.leases().resource(l).update(), "renew lease " + hex);
                return Duration.ofSeconds(l.getSpec().getLeaseDurationSeconds());
            } catch (CoordinationException e) {
                if (KubernetesCalls.code(e) == 404) {
                    return Duration.ZERO;
                }
                if (KubernetesCalls.code(e) != 409) {
                    throw e;
                }
            }
        }
        throw new CoordinationException("renew lease " + hex + ": changed under every attempt");
    }

    void revoke(long lease) {
        api.call(() -> api.leases().withName(api.leaseName(lease)).delete(), "revoke lease " + Long.toHexString(lease));
    }

    /**
     * The membership leases alive as this observer judges them; marks expired (compare-and-set) and deletes
     * those silent for their whole duration.
     */
    Set<Long> live() {
        Set<Long> live = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (Lease l : api.call(
                () -> api.leases()
                        .withLabel(KubernetesCalls.CLUSTER_LABEL, api.prefix())
                        .withLabel(KubernetesCalls.ROLE_LABEL, "member")
                        .list()
                        .getItems(),
                "list the leases")) {
            String name = l.getMetadata().getName();
            names.add(name);
            String holder = l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
            Long id = KubernetesCalls.parseHex(holder);
            if (id == null || !name.equals(api.leaseName(id))) {
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
                api.call(() -> api.leases().resource(l).update(), "expire lease " + holder);
                deleteQuietly(name);
            } catch (CoordinationException e) {
                if (KubernetesCalls.code(e) == 409) {
                    live.add(id); // renewed just now: alive after all
                } else if (KubernetesCalls.code(e) != 404) {
                    throw e;
                }
            }
        }
        observations.retain(names);
        return live;
    }

    private void deleteQuietly(String leaseName) {
        try {
            api.call(() -> api.leases().withName(leaseName).delete(), "delete lease " + leaseName);
        } catch (CoordinationException e) {
            // Anyone may remove a dead lease; the next observer tries again.
        }
    }
}
