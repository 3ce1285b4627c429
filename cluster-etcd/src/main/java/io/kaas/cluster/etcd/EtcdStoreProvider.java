package io.kaas.cluster.etcd;

import io.kaas.cluster.ClusterStoreProvider;
import io.kaas.cluster.StoreAddress;
import java.util.Set;

/** {@code etcd://HOST:PORT[,HOST:PORT...]}: the etcd v3 backend ({@link EtcdAddress}, {@link EtcdClusterStore}). */
public final class EtcdStoreProvider implements ClusterStoreProvider {
    @Override
    public Set<String> schemes() {
        return Set.of("etcd");
    }

    @Override
    public String form() {
        return "etcd://HOST:PORT[,HOST:PORT...]";
    }

    @Override
    public StoreAddress address(String spec) {
        return EtcdAddress.parse(spec);
    }
}
