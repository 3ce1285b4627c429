package io.kaas.cluster;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How a broker joins several others over one shared data directory ({@code kaas serve --coordinator}).
 *
 * @param store     where the coordination store is, as a backend ({@link ClusterStoreProvider}) parsed it
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

    public ClusterConfig {
        java.util.Objects.requireNonNull(store, "store");
        if (leaseTtl.toSeconds() < 2) {
            throw new IllegalArgumentException(
                    "the lease TTL must be at least 2 s (etcd and Kubernetes Leases count whole seconds), got "
                            + leaseTtl);
        }
        if (margin.isNegative() || margin.compareTo(leaseTtl.dividedBy(2)) > 0) {
            throw new IllegalArgumentException(
                    "the self-fence margin must be between 0 and half the lease TTL, got " + margin);
        }
    }

    /**
     * Parses {@code --coordinator} (a URI whose scheme names an installed backend, {@link #forms}), with the default
     * timings.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ClusterConfig parse(String spec) {
        return parse(spec, ClusterStoreProvider.installed());
    }

    /** {@link #parse(String)} among {@code providers}. */
    static ClusterConfig parse(String spec, List<ClusterStoreProvider> providers) {
        int sep = spec == null ? -1 : spec.indexOf("://");
        String scheme = sep < 0 ? null : spec.substring(0, sep);
        for (ClusterStoreProvider p : providers) {
            if (scheme != null && p.schemes().contains(scheme)) {
                return new ClusterConfig(
                        p.address(spec), DEFAULT_LEASE_TTL, DEFAULT_MARGIN, DEFAULT_GRACE, DEFAULT_TIMEOUT);
            }
        }
        throw new IllegalArgumentException("--coordinator must look like " + forms(providers) + ", got " + spec);
    }

    /** What {@code --coordinator} takes with these backends, for help texts and errors. */
    static String forms(List<ClusterStoreProvider> providers) {
        if (providers.isEmpty()) {
            return "a URI of a coordination backend (none is installed)";
        }
        return providers.stream().map(ClusterStoreProvider::form).collect(Collectors.joining(" or "));
    }

    /** A store for the brokers of {@code clusterId}, within this config's timeout (see {@link StoreAddress#connect}). */
    public ClusterStore connect(String clusterId) {
        return store.connect(clusterId, timeout);
    }

    public ClusterConfig withTimings(Duration ttl, Duration margin, Duration grace) {
        return new ClusterConfig(store, ttl, margin, grace, timeout);
    }
}
