package io.kaas.broker.coordination;

import io.kaas.broker.coordination.kubernetes.KubernetesAddress;
import java.time.Duration;

/**
 * How a broker joins several others over one shared data directory ({@code kaas serve --coordinator}).
 *
 * @param store     where the coordination store is: etcd or Kubernetes
 * @param leaseTtl  the membership lease: a broker silent this long loses its partitions
 * @param margin    the self-fence stops acknowledging this long before the lease can expire
 * @param grace     after the store shows a lease expired, its partitions wait this long before moving
 * @param timeout   longest wait for one call to the store
 */
public record ClusterConfig(StoreAddress store, Duration leaseTtl, Duration margin, Duration grace, Duration timeout) {
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(6);
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(2);
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(2);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** What {@code --coordinator} takes, for help texts and errors. */
    public static final String FORMS = "etcd://HOST:PORT[,HOST:PORT...] or k8s://[NAMESPACE][?context=NAME]";

    public ClusterConfig {
        java.util.Objects.requireNonNull(store, "store");
        if (leaseTtl.toSeconds() < 2) {
            throw new IllegalArgumentException("the lease TTL must be at least 2 s (etcd and Kubernetes Leases count whole seconds), got " + leaseTtl);
        }
        if (margin.isNegative() || margin.compareTo(leaseTtl.dividedBy(2)) > 0) {
            throw new IllegalArgumentException("the self-fence margin must be between 0 and half the lease TTL, got " + margin);
        }
    }

    /**
     * Parses {@code --coordinator} ({@link #FORMS}), with the default timings.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ClusterConfig parse(String spec) {
        StoreAddress store;
        if (spec != null && spec.startsWith(EtcdAddress.SCHEME)) {
            store = EtcdAddress.parse(spec);
        } else if (spec != null && KubernetesAddress.matches(spec)) {
            store = KubernetesAddress.parse(spec);
        } else {
            throw new IllegalArgumentException("--coordinator must look like " + FORMS + ", got " + spec);
        }
        return new ClusterConfig(store, DEFAULT_LEASE_TTL, DEFAULT_MARGIN, DEFAULT_GRACE, DEFAULT_TIMEOUT);
    }

    /** A store for the brokers of {@code clusterId}, within this config's timeout (see {@link StoreAddress#connect}). */
    public ClusterStore connect(String clusterId) {
        return store.connect(clusterId, timeout);
    }

    public ClusterConfig withTimings(Duration ttl, Duration margin, Duration grace) {
        return new ClusterConfig(store, ttl, margin, grace, timeout);
    }
}
