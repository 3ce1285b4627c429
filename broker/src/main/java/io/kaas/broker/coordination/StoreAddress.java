package io.kaas.broker.coordination;

import java.time.Duration;

/**
 * Where the coordination store is, as {@code --coordinator} names it: {@link EtcdAddress} ({@code etcd://})
 * or {@link io.kaas.broker.coordination.kubernetes.KubernetesAddress} ({@code k8s://}).
 */
public interface StoreAddress {
    /**
     * A store for the brokers of {@code clusterId}, checked with one read so an unreachable store fails here.
     *
     * @throws CoordinationException when the store does not answer within {@code timeout}
     */
    ClusterStore connect(String clusterId, Duration timeout);
}
