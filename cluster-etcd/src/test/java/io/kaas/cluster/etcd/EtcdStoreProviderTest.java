package io.kaas.cluster.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStoreProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The etcd backend is found by its scheme through {@code META-INF/services}. */
class EtcdStoreProviderTest {
    @Test
    void etcdUrisReachThisBackend() {
        assertThat(ClusterStoreProvider.installed()).hasExactlyElementsOfTypes(EtcdStoreProvider.class);
        assertThat(ClusterConfig.parse("etcd://127.0.0.1:2379,[::1]:2380").store())
                .isEqualTo(new EtcdAddress(List.of("127.0.0.1:2379", "[::1]:2380")));
    }
}
