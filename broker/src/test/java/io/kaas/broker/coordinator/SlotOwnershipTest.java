package io.kaas.broker.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.cluster.CoordinatorSlots;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The one slot-ownership rule both coordinators follow: a slot is loaded before it is served, written only inside a
 * hold while coordinated, and given up only once no hold of it is open; the self-fence stops every slot at once.
 */
class SlotOwnershipTest {
    /** What the coordinator was asked to do, in order, with whether the slot was served at that moment. */
    private final List<String> calls = new ArrayList<>();

    private SlotOwnership ownership;

    private SlotOwnership ownership() {
        ownership = new SlotOwnership(CoordinatorSlots.TRANSACTION, new SlotOwnership.SlotState() {
            @Override
            public void load(int slot) {
                calls.add("load " + slot + (ownership.active(slot) ? " served" : " not served"));
            }

            @Override
            public void serving(int slot) {
                calls.add("serving " + slot + (ownership.active(slot) ? " served" : " not served"));
            }

            @Override
            public void unload(int slot) {
                calls.add("unload " + slot + (ownership.active(slot) ? " served" : " not served"));
            }
        });
        return ownership;
    }

    @Test
    void aBrokerOnItsOwnCoordinatesEverySlotInEpochZero() {
        SlotOwnership s = ownership();
        assertThat(s.coordinatingAll()).isTrue();
        for (int slot = 0; slot < CoordinatorSlots.TRANSACTION.slots(); slot++) {
            assertThat(s.active(slot)).isTrue();
            assertThat(s.epoch(slot)).isZero();
        }
        assertThat(s.whileActive(3, () -> calls.add("write"))).isTrue();
        assertThat(calls).containsExactly("write");
    }

    @Test
    void aSharingBrokerServesASlotOnlyBetweenGainAndLoseAndLoadsItBeforeServing() {
        SlotOwnership s = ownership();
        s.coordinateWhenTaken(() -> true);
        assertThat(s.active(7)).isFalse();
        assertThat(s.whileActive(7, () -> calls.add("write")))
                .as("not coordinated: not run")
                .isFalse();

        s.gain(7, 4);
        assertThat(s.active(7)).isTrue();
        assertThat(s.active(8)).isFalse();
        assertThat(s.epoch(7)).as("the coordinator epoch markers carry").isEqualTo(4);
        assertThat(s.whileActive(7, () -> calls.add("write"))).isTrue();

        s.lose(7);
        assertThat(s.active(7)).isFalse();
        assertThat(s.whileActive(7, () -> calls.add("late write"))).isFalse();
        assertThat(calls).containsExactly("load 7 not served", "serving 7 served", "write", "unload 7 not served");
    }

    @Test
    void theSelfFenceStopsEverySlotAtOnce() {
        AtomicBoolean fence = new AtomicBoolean(true);
        SlotOwnership s = ownership();
        s.coordinateWhenTaken(fence::get);
        s.gain(1, 1);
        fence.set(false);
        assertThat(s.active(1)).isFalse();
        try (SlotOwnership.Held held = s.hold(1)) {
            assertThat(held.coordinating()).isFalse();
        }
        fence.set(true);
        assertThat(s.active(1)).isTrue();
    }

    @Test
    void givingASlotUpWaitsForTheWriteUnderWay() throws Exception {
        SlotOwnership s = ownership();
        s.coordinateWhenTaken(() -> true);
        s.gain(2, 1);
        SlotOwnership.Held writing = s.hold(2);
        assertThat(writing.coordinating()).isTrue();
        AtomicReference<Thread> loser = new AtomicReference<>();
        CompletableFuture<Void> lost = CompletableFuture.runAsync(() -> {
            loser.set(Thread.currentThread());
            s.lose(2);
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> loser.get() != null && loser.get().getState() == Thread.State.WAITING);
        assertThat(lost).as("a write of the slot is under way").isNotDone();
        assertThat(writing.coordinating()).as("and it may still finish").isTrue();
        writing.close();
        lost.get();
        assertThat(s.active(2)).isFalse();
        assertThat(calls).last().isEqualTo("unload 2 not served");
    }

    @Test
    void slotsAreApachesPartitionsOfTheKey() {
        // Utils.abs(hashCode) % 50, as GroupCoordinatorService.partitionFor and TransactionStateManager.partitionFor.
        assertThat(SlotOwnership.slotFor(CoordinatorSlots.GROUP, "g")).isEqualTo(Math.abs("g".hashCode()) % 50);
        String negative = "polygenelubricants"; // hashCode() is Integer.MIN_VALUE
        assertThat(negative.hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(SlotOwnership.slotFor(CoordinatorSlots.TRANSACTION, negative))
                .isBetween(0, 49);
    }
}
