package io.kaas.cluster.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.ClusterStoreContract;
import io.kaas.cluster.CoordinationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The etcd backend of the coordination seam against a real etcd: the shared contract, and etcd's own errors. */
@ExtendWith(EtcdServer.Shared.class)
class EtcdClusterStoreIT extends ClusterStoreContract {
    private EtcdServer etcd;

    @BeforeEach
    void useEtcd(EtcdServer etcd) {
        this.etcd = etcd;
    }

    @Override
    protected ClusterStore store(String cluster) {
        return EtcdClusterStore.connect(List.of(etcd.endpoint()), cluster, TIMEOUT);
    }

    @Test
    void anUnreachableEtcdIsAClearError() {
        assertThatThrownBy(() -> EtcdClusterStore.connect(List.of("127.0.0.1:1"), "x", Duration.ofMillis(500)))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("127.0.0.1:1");
    }
}
