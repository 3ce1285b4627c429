package io.kaas.cluster.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.cluster.Assignment;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.PartitionPins;
import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pins kaas assign and kafka-reassign-partitions share, on a real etcd with no broker running: a move is in
 * progress while the pinned broker does not hold the partition; cancelling one gives the partition back to its
 * holder (it does not move), cancelling a finished one only unpins.
 */
@ExtendWith(EtcdServer.Shared.class)
class PartitionPinsIT {
    private static final TopicPartition TP = new TopicPartition("t", 1);
    private static final Map<String, Integer> TOPICS = Map.of("t", 2);

    @Test
    void aMoveIsInProgressUntilItsBrokerHoldsThePartitionAndACancelLeavesItWithItsHolder(EtcdServer etcd) {
        try (ClusterStore store = EtcdClusterStore.connect(
                List.of(etcd.endpoint()), "pins-" + UUID.randomUUID(), Duration.ofSeconds(5))) {
            store.publishTopic("t", 2);
            assertThat(store.compareAndSetAssignment(0, new Assignment(Map.of("t", List.of(0, 0)))))
                    .isTrue();
            long lease = store.grantLease(Duration.ofSeconds(10));
            assertThat(store.claim(TP, store.epoch(TP).version(), 1, 0, lease)).isTrue(); // broker 0 holds t-1
            PartitionPins pins = new PartitionPins(store);

            Assignment before = pins.pin(List.of(TP), 1, TOPICS);
            assertThat(before.owner(TP)).isEqualTo(OptionalInt.of(0));
            assertThat(pins.assignment().owner(TP)).isEqualTo(OptionalInt.of(1));
            assertThat(pins.inProgress(tp -> true)).containsExactly(new PartitionPins.Move(TP, 1, OptionalInt.of(0)));
            assertThat(pins.inProgress(tp -> tp.partition() == 0)).isEmpty();

            pins.cancel(List.of(TP), TOPICS);
            assertThat(pins.assignment().pin(TP)).isEmpty();
            assertThat(pins.assignment().owner(TP))
                    .as("back to the broker holding it: nothing moves")
                    .isEqualTo(OptionalInt.of(0));
            assertThat(pins.inProgress(tp -> true)).isEmpty();

            // Pinned to its holder: done at once; cancelling then only unpins.
            pins.pin(List.of(TP), 0, TOPICS);
            assertThat(pins.inProgress(tp -> true)).isEmpty();
            assertThat(pins.heldBy(List.of(TP), 0)).isTrue();
            pins.cancel(List.of(TP), TOPICS);
            assertThat(pins.assignment().pin(TP)).isEmpty();
            assertThat(pins.assignment().owner(TP)).isEqualTo(OptionalInt.of(0));

            // Released and not claimed yet: still in progress, with no broker serving it meanwhile.
            pins.pin(List.of(TP), 1, TOPICS);
            store.release(TP, 0);
            assertThat(pins.inProgress(tp -> true)).containsExactly(new PartitionPins.Move(TP, 1, OptionalInt.empty()));
            assertThat(store.claim(TP, store.epoch(TP).version(), 2, 1, lease)).isTrue();
            assertThat(pins.inProgress(tp -> true)).isEmpty();
            store.revokeLease(lease);
        }
    }

    @Test
    void aPartitionMissingFromTheClusterIsNamed() {
        assertThat(PartitionPins.missing(new TopicPartition("t", 1), TOPICS)).isNull();
        assertThat(PartitionPins.missing(new TopicPartition("t", 2), TOPICS)).isEqualTo("t has 2 partitions");
        assertThat(PartitionPins.missing(new TopicPartition("u", 0), TOPICS)).isEqualTo("no topic u in this cluster");
    }
}
