package io.kaas.cluster;

import java.util.HashMap;
import java.util.Map;

/** The in-memory store the membership tests run over keeps the contract every backend keeps (on the real clock). */
class InMemoryClusterStoreTest extends ClusterStoreContract {
    private final Map<String, InMemoryClusterStore> clusters = new HashMap<>();

    @Override
    protected ClusterStore store(String cluster) {
        InMemoryClusterStore first = clusters.get(cluster);
        if (first == null) {
            first = InMemoryClusterStore.create(System::nanoTime);
            clusters.put(cluster, first);
            return first;
        }
        return first.client();
    }
}
