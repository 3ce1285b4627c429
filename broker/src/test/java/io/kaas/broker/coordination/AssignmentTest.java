package io.kaas.broker.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.TopicPartition;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AssignmentTest {
    @Test
    void newPartitionsSpreadEvenlyAndLiveOwnersStay() {
        Assignment a = Assignment.EMPTY.rebalanced(Map.of("a", 3, "b", 3), Set.of(1, 2, 3));
        assertThat(a.owners()).containsEntry("a", java.util.List.of(1, 2, 3)).containsEntry("b", java.util.List.of(1, 2, 3));
        Assignment grown = a.rebalanced(Map.of("a", 4, "b", 3), Set.of(1, 2, 3, 4));
        assertThat(grown.owner(new TopicPartition("a", 3))).as("to the broker owning none").hasValue(4);
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
        long kept = java.util.stream.IntStream.range(0, 6).filter(p -> two.owners().get("a").get(p).equals(three.owners().get("a").get(p))).count();
        assertThat(kept).as("only what the newcomer takes moves").isEqualTo(4);
    }

    @Test
    void aGoneBrokersPartitionsGoToTheLeastLoaded() {
        Assignment a = Assignment.EMPTY.rebalanced(Map.of("a", 4), Set.of(1, 2));
        Assignment after = a.rebalanced(Map.of("a", 4), Set.of(1, 3));
        assertThat(after.owners().get("a")).containsExactly(1, 3, 1, 3);
        assertThat(after.rebalanced(Map.of(), Set.of(1)).owners()).isEmpty();
        assertThat(Assignment.EMPTY.rebalanced(Map.of("a", 1), Set.of()).owner(new TopicPartition("a", 0))).isEmpty();
    }
}
