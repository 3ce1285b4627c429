package io.kaas.cluster.etcd;

import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.StoreAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code etcd://HOST:PORT[,HOST:PORT...]}: an etcd v3 cluster's client endpoints (plain HTTP/2). */
public record EtcdAddress(List<String> endpoints) implements StoreAddress {
    public static final String SCHEME = "etcd://";

    public EtcdAddress {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("a coordinator needs at least one endpoint");
        }
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static EtcdAddress parse(String spec) {
        List<String> endpoints = new ArrayList<>();
        for (String e : spec.substring(SCHEME.length()).split(",")) {
            String hp = e.trim();
            URI u = URI.create("http://" + hp);
            if (hp.isEmpty()
                    || u.getHost() == null
                    || u.getPort() < 1
                    || (u.getPath() != null && !u.getPath().isEmpty())) {
                throw new IllegalArgumentException("--coordinator: not HOST:PORT: '" + hp + "' in " + spec);
            }
            endpoints.add(hp);
        }
        return new EtcdAddress(endpoints);
    }

    @Override
    public ClusterStore connect(String clusterId, Duration timeout) {
        return EtcdClusterStore.connect(endpoints, clusterId, timeout);
    }

    @Override
    public String toString() {
        return SCHEME + String.join(",", endpoints);
    }
}
