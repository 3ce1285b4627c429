package io.kaas.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code --coordinator} goes to the backend its URI scheme names; the cluster module itself knows none. */
class ClusterConfigTest {
    private record Address(String spec) implements StoreAddress {
        @Override
        public ClusterStore connect(String clusterId, Duration timeout) {
            throw new UnsupportedOperationException("not opened in this test");
        }
    }

    private record Provider(Set<String> schemes, String form) implements ClusterStoreProvider {
        @Override
        public StoreAddress address(String spec) {
            return new Address(spec);
        }
    }

    private static final List<ClusterStoreProvider> TWO =
            List.of(new Provider(Set.of("one"), "one://A"), new Provider(Set.of("two", "second"), "two://B"));

    @Test
    void theSchemePicksTheBackendWithTheDefaultTimings() {
        ClusterConfig c = ClusterConfig.parse("second://x:1", TWO);
        assertThat(c.store()).isEqualTo(new Address("second://x:1"));
        assertThat(c.leaseTtl()).isEqualTo(ClusterConfig.DEFAULT_LEASE_TTL);
        assertThat(c.timeout()).isEqualTo(ClusterConfig.DEFAULT_TIMEOUT);
        assertThat(ClusterConfig.parse("one://y", TWO).store()).isEqualTo(new Address("one://y"));
    }

    @Test
    void anUnknownSchemeOrNoneNamesTheFormsTheInstalledBackendsTake() {
        assertThatThrownBy(() -> ClusterConfig.parse("three://z", TWO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--coordinator must look like one://A or two://B, got three://z");
        assertThatThrownBy(() -> ClusterConfig.parse("one", TWO)).hasMessageContaining("got one");
        assertThatThrownBy(() -> ClusterConfig.parse(null, TWO)).hasMessageContaining("got null");
        assertThatThrownBy(() -> ClusterConfig.parse("one://y", List.of())).hasMessageContaining("none is installed");
    }

    @Test
    void noBackendIsOnTheClusterModulesOwnClassPath() {
        assertThat(ClusterStoreProvider.installed()).isEmpty();
    }
}
