package io.kaas.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.TopicPartition;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AssignmentTest {
    @Test
    void newPartitionsSpreadEvenlyAndLiveOwnersStay() {
        Assignment a = Assignment.EMPTY.rebalanced(Map.of("a", 3, "b", 3), Set.of(1, 2, 3));
        assertThat(a.owners())
                .containsEntry("a", java.util.List.of(1, 2, 3))
                .containsEntry("b", java.util.List.of(1, 2, 3));
        Assignment grown = a.rebalanced(Map.of("a", 4, "b", 3), Set.of(1, 2, 3, 4));
        assertThat(grown.owner(new TopicPartition("a", 3)))
                .as("to the broker owning none")
                .hasValue(4);
        assertThat(grown.owners().get("b")).isEqualTo(a.owners().get("b"));
        assertThat(grown.rebalanced(Map.of("a", 4, "b", 3), Set.of(1, 2, 3, 4))).isSameAs(grown);
    }

    @Test
    void aBrokerThatJoinsGetsItsShareFromTheMostLoaded() {
        Assignment two = Assignment.EMPTY.rebalanced(Map.of("a", 6), Set.of(1, 2));
        assertThat(two.owners().get("a")).containsExactly(1, 2, 1, 2, 1, 2);
        Assignment three = two.rebalanced(Map.of("a", 6), Set.of(1, 2, 3));
        assertThat(three.owners().get("a")).filteredOn(b -> b == 3).hasSize(2);
        assertThat(three.owners().get("a")).filteredOn(b -> b == 1).hasSize(2);
        long kept = java.util.stream.IntStream.range(0, 6)
                .filter(p -> two.owners()
                        .get("a")
                        .get(p)
                        .equals(three.owners().get("a").get(p)))
                .count();
        assertThat(kept).as("only what the newcomer takes moves").isEqualTo(4);
    }

    /**
     * Coordinator slots are spread with the partitions' rule, each kind on its own: three brokers get 2 of 6
     * partitions and 16 or 17 of each kind's 50 slots; a broker that joins takes its share of each.
     */
    @Test
    void coordinatorSlotsSpreadEvenlyPerKindBesideThePartitions() {
        Assignment a = Assignment.EMPTY.rebalancedWithSlots(Map.of("t", 6), Set.of(0, 1), Set.of(0, 1));
        Assignment three = a.rebalancedWithSlots(Map.of("t", 6), Set.of(0, 1, 2), Set.of(0, 1, 2));
        assertThat(three.owners().get("t")).filteredOn(b -> b == 2).hasSize(2);
        for (CoordinatorSlots kind : CoordinatorSlots.values()) {
            assertThat(three.owners().get(kind.topic())).hasSize(kind.slots());
            for (int b = 0; b < 3; b++) {
                int broker = b;
                assertThat(three.owners().get(kind.topic()))
                        .filteredOn(o -> o == broker)
                        .hasSizeBetween(16, 17);
            }
        }
        assertThat(three.rebalancedWithSlots(Map.of("t", 6), Set.of(0, 1, 2), Set.of(0, 1, 2)))
                .isSameAs(three);
    }

    @Test
    void aGoneBrokersPartitionsGoToTheLeastLoaded() {
        Assignment a = Assignment.EMPTY.rebalanced(Map.of("a", 4), Set.of(1, 2));
        Assignment after = a.rebalanced(Map.of("a", 4), Set.of(1, 3));
        assertThat(after.owners().get("a")).containsExactly(1, 3, 1, 3);
        assertThat(after.rebalanced(Map.of(), Set.of(1)).owners()).isEmpty();
        assertThat(Assignment.EMPTY.rebalanced(Map.of("a", 1), Set.of()).owner(new TopicPartition("a", 0)))
                .isEmpty();
    }

    @Test
    void aPinnedPartitionStaysOnItsBrokerAndTheOthersEvenOutAroundIt() {
        Assignment even = Assignment.EMPTY.rebalanced(Map.of("a", 6), Set.of(1, 2));
        TopicPartition a0 = new TopicPartition("a", 0);
        Assignment moved = even.pinned(a0, 2, 6);
        assertThat(moved.owner(a0)).hasValue(2);
        assertThat(moved.pin(a0)).hasValue(2);
        // Broker 2 now owns 4 of 6: evening out moves one of its unpinned partitions, never the pinned one.
        Assignment next = moved.rebalanced(Map.of("a", 6), Set.of(1, 2));
        assertThat(next.owner(a0)).hasValue(2);
        assertThat(next.owners().get("a")).filteredOn(b -> b == 2).hasSize(3);
        assertThat(next.rebalanced(Map.of("a", 6), Set.of(1, 2, 3)).owner(a0))
                .as("a newcomer takes unpinned ones")
                .hasValue(2);

        // Its broker gone: the partition is served elsewhere meanwhile, and goes back when the broker returns.
        Assignment without = next.rebalanced(Map.of("a", 6), Set.of(1));
        assertThat(without.owner(a0)).hasValue(1);
        assertThat(without.pin(a0)).hasValue(2);
        assertThat(without.rebalanced(Map.of("a", 6), Set.of(1, 2)).owner(a0)).hasValue(2);

        // Unpinned: it stays until the load calls for a move; a deleted topic's pins go with it.
        Assignment unpinned = next.unpinned(a0);
        assertThat(unpinned.pin(a0)).isEmpty();
        assertThat(unpinned.owner(a0)).hasValue(2);
        assertThat(next.rebalanced(Map.of(), Set.of(1, 2)).pins()).isEmpty();
    }

    @Test
    void allPartitionsPinnedToOneBrokerIsStable() {
        Assignment a = Assignment.EMPTY.rebalanced(Map.of("a", 3), Set.of(1, 2));
        for (int p = 0; p < 3; p++) {
            a = a.pinned(new TopicPartition("a", p), 1, 3);
        }
        Assignment next = a.rebalanced(Map.of("a", 3), Set.of(1, 2));
        assertThat(next.owners().get("a")).containsExactly(1, 1, 1);
        assertThat(next.rebalanced(Map.of("a", 3), Set.of(1, 2))).isSameAs(next);
    }

    @Test
    void pinsSurviveJsonAndAnAssignmentWithoutPinsKeepsItsOldForm() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Assignment plain = Assignment.EMPTY.rebalanced(Map.of("a", 2), Set.of(1));
        assertThat(json.writeValueAsString(plain)).isEqualTo("{\"owners\":{\"a\":[1,1]}}");
        assertThat(json.readValue("{\"owners\":{\"a\":[1,1]}}", Assignment.class))
                .isEqualTo(plain);
        Assignment pinned = plain.pinned(new TopicPartition("a", 1), 3, 2);
        assertThat(json.readValue(json.writeValueAsString(pinned), Assignment.class))
                .isEqualTo(pinned);
    }
}
