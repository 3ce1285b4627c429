package io.kaas.broker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Subscriptions on disk: Apache's validation, deletion, and a second broker on the same file learning changes. */
class ClientMetricsSubscriptionsTest {
    @TempDir
    Path dir;

    @Test
    void changesAreValidatedWrittenAndHandedOnIncludingThoseOfAnotherBroker() {
        Path file = dir.resolve("client-metrics.json");
        Map<String, Properties> seenByA = new HashMap<>();
        Map<String, Properties> seenByB = new HashMap<>();
        ClientMetricsSubscriptions a = new ClientMetricsSubscriptions(file, seenByA::put);
        ClientMetricsSubscriptions b = new ClientMetricsSubscriptions(file, seenByB::put);
        a.alter("s", c -> Map.of("metrics", "*", "interval.ms", "1000"), false);
        assertThat(seenByA.get("s")).containsEntry("interval.ms", "1000");
        assertThat(b.names()).containsExactly("s"); // names() reads the changed file again
        assertThat(seenByB.get("s")).containsEntry("metrics", "*");
        assertThatThrownBy(() -> a.alter("s", c -> Map.of("interval.ms", "5"), false))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("interval.ms");
        a.alter("v", c -> Map.of("metrics", "*"), true);
        assertThat(a.names()).containsExactly("s");
        a.alter("s", c -> Map.of(), false);
        assertThat(seenByA.get("s")).isEmpty(); // an empty set removes the subscription
        b.refresh();
        assertThat(seenByB.get("s")).isEmpty();
        assertThat(new ClientMetricsSubscriptions(file, (n, p) -> {}).names()).isEmpty();
    }
}
