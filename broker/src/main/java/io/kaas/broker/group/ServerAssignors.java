package io.kaas.broker.group;

import java.util.Optional;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/** KIP-848 server-side assignors by the names members ask for ({@code group.remote.assignor}): Apache's own classes. */
final class ServerAssignors {
    private ServerAssignors() {}

    static Optional<ConsumerGroupPartitionAssignor> find(String name) {
        return switch (name) {
            case UniformAssignor.NAME -> Optional.of(new UniformAssignor());
            case RangeAssignor.NAME -> Optional.of(new RangeAssignor());
            default -> Optional.empty();
        };
    }

    static ConsumerGroupPartitionAssignor byName(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("unknown server-side assignor: " + name));
    }
}
