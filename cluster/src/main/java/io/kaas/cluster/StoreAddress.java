package io.kaas.cluster;

import java.time.Duration;

/**
 * Where the coordination store is, as {@code --coordinator} names it, parsed by the backend its URI scheme names
 * ({@link ClusterStoreProvider}: {@code etcd://} and {@code k8s://} are the two kaas ships).
 */
public interface StoreAddress {
    /**
     * A store for the brokers of {@code clusterId}, checked with one read so an unreachable store fails here.
     *
     * @throws CoordinationException when the store does not answer within {@code timeout}
     */
    ClusterStore connect(String clusterId, Duration timeout);
}
