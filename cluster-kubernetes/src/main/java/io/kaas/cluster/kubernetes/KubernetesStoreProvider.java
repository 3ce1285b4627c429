package io.kaas.cluster.kubernetes;

import io.kaas.cluster.ClusterStoreProvider;
import io.kaas.cluster.StoreAddress;
import java.util.Set;

/** {@code k8s://[NAMESPACE][?context=NAME]} (or {@code kubernetes://}): Leases and a ConfigMap ({@link KubernetesAddress}). */
public final class KubernetesStoreProvider implements ClusterStoreProvider {
    @Override
    public Set<String> schemes() {
        return Set.of("k8s", "kubernetes");
    }

    @Override
    public String form() {
        return "k8s://[NAMESPACE][?context=NAME]";
    }

    @Override
    public StoreAddress address(String spec) {
        return KubernetesAddress.parse(spec);
    }
}
