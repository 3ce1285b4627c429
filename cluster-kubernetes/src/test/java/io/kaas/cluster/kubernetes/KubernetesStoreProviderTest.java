package io.kaas.cluster.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStoreProvider;
import org.junit.jupiter.api.Test;

/** The Kubernetes backend is found by either of its schemes through {@code META-INF/services}. */
class KubernetesStoreProviderTest {
    @Test
    void k8sAndKubernetesUrisReachThisBackend() {
        assertThat(ClusterStoreProvider.installed()).hasExactlyElementsOfTypes(KubernetesStoreProvider.class);
        assertThat(ClusterConfig.parse("k8s://kaas?context=dev").store())
                .isEqualTo(new KubernetesAddress("kaas", "dev"));
        assertThat(ClusterConfig.parse("kubernetes://").store()).isEqualTo(new KubernetesAddress(null, null));
    }
}
