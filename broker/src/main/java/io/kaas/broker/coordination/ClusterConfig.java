package io.kaas.broker.coordination;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a broker joins several others over one shared data directory ({@code kaas serve --coordinator}).
 *
 * @param endpoints etcd endpoints, {@code host:port}
 * @param leaseTtl  the membership lease: a broker silent this long loses its partitions
 * @param margin    the self-fence stops acknowledging this long before the lease can expire
 * @param grace     after the store shows a lease expired, its partitions wait this long before moving
 * @param timeout   longest wait for one call to the store
 */
public record ClusterConfig(List<String> endpoints, Duration leaseTtl, Duration margin, Duration grace, Duration timeout) {
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(6);
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(2);
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(2);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    public ClusterConfig {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("a coordinator needs at least one endpoint");
        }
        if (leaseTtl.toSeconds() < 2) {
            throw new IllegalArgumentException("the lease TTL must be at least 2 s (etcd counts whole seconds), got " + leaseTtl);
        }
        if (margin.isNegative() || margin.compareTo(leaseTtl.dividedBy(2)) > 0) {
            throw new IllegalArgumentException("the self-fence margin must be between 0 and half the lease TTL, got " + margin);
        }
    }

    /**
     * Parses {@code --coordinator}: {@code etcd://HOST:PORT[,HOST:PORT...]}, with the default timings.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ClusterConfig parse(String spec) {
        String prefix = "etcd://";
        if (spec == null || !spec.startsWith(prefix)) {
            throw new IllegalArgumentException("--coordinator must look like etcd://HOST:PORT[,HOST:PORT...], got " + spec);
        }
        List<String> endpoints = new ArrayList<>();
        for (String e : spec.substring(prefix.length()).split(",")) {
            String hp = e.trim();
            URI u = URI.create("http://" + hp);
            if (hp.isEmpty() || u.getHost() == null || u.getPort() < 1 || (u.getPath() != null && !u.getPath().isEmpty())) {
                throw new IllegalArgumentException("--coordinator: not HOST:PORT: '" + hp + "' in " + spec);
            }
            endpoints.add(hp);
        }
        return new ClusterConfig(endpoints, DEFAULT_LEASE_TTL, DEFAULT_MARGIN, DEFAULT_GRACE, DEFAULT_TIMEOUT);
    }

    public ClusterConfig withTimings(Duration ttl, Duration margin, Duration grace) {
        return new ClusterConfig(endpoints, ttl, margin, grace, timeout);
    }
}
