package io.kaas.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.GroupOffsetsFile;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers' group coordinators over one directory: only the one that took coordination answers and
 * writes; it re-reads what its predecessor committed; one that gave it up, or whose self-fence closed, answers
 * NOT_COORDINATOR and writes nothing.
 */
class GroupCoordinationHandOverTest {
    @TempDir
    Path clusterDir;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private static GroupOffsetsFile.Committed at(long offset) {
        return new GroupOffsetsFile.Committed("t", 0, offset, -1, "", 0);
    }

    @Test
    void onlyTheBrokerThatTookCoordinationAnswersAndWrites() {
        AtomicBoolean fenceOpen = new AtomicBoolean(true);
        GroupCoordinator first = new GroupCoordinator(clusterDir, timer);
        first.coordinateWhenTaken(fenceOpen::get);
        GroupCoordinator second = new GroupCoordinator(clusterDir, timer);
        second.coordinateWhenTaken(() -> true);

        assertThat(first.commit("g", "", null, -1, List.of(at(5)))).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(first.validateOffsetFetch("g", "", -1)).isEqualTo(Errors.NOT_COORDINATOR);
        int slot = GroupCoordinator.slotFor("g");
        first.takeCoordination(slot, 1);
        assertThat(first.commit("g", "", null, -1, List.of(at(5)))).isEqualTo(Errors.NONE);
        String elsewhere = otherSlotThan(slot);
        assertThat(first.commit(elsewhere, "", null, -1, List.of(at(1))))
                .as("a group of a slot it does not hold")
                .isEqualTo(Errors.NOT_COORDINATOR);
        // A transaction's offsets staged with the group's coordinator (TxnOffsetCommit), pending until its marker.
        assertThat(first.stageTransactional("g", "", null, -1, 77, (short) 0, List.of(at(9))))
                .isEqualTo(Errors.NONE);
        assertThat(first.hasPendingOffset("g", "t", 0)).isTrue();
        assertThat(first.list()).extracting(GroupCoordinator.Listing::groupId).containsExactly("g");
        assertThat(second.heartbeat("g", "m", null, 1)).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(second.list()).isEmpty();

        fenceOpen.set(false); // its lease may be expiring: it stops before another may take over
        assertThat(first.commit("g", "", null, -1, List.of(at(6)))).isEqualTo(Errors.NOT_COORDINATOR);
        first.giveUpCoordination(slot);
        fenceOpen.set(true);
        assertThat(first.commit("g", "", null, -1, List.of(at(6)))).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(first.deleteGroup("g")).isEqualTo(Errors.NOT_COORDINATOR);

        assertThat(first.completeTransaction(slot, 77, true))
                .as("an ex-coordinator settles no marker")
                .isEqualTo(Errors.NOT_COORDINATOR);
        second.takeCoordination(slot, 2);
        assertThat(second.committed("g")).containsValue(at(5)); // its predecessor's commit, re-read from the file
        assertThat(second.hasPendingOffset("g", "t", 0))
                .as("the pending offsets, re-read too")
                .isTrue();
        assertThat(second.completeTransaction(slot, 77, true)).isEqualTo(Errors.NONE);
        assertThat(second.committed("g")).containsValue(at(9));
        assertThat(second.hasPendingOffset("g", "t", 0)).isFalse();
        assertThat(second.commit("g", "", null, -1, List.of(at(7)))).isEqualTo(Errors.NONE);
        assertThat(new OffsetStore(clusterDir).offsets("g")).containsValue(at(7));
    }

    @Test
    void takingASlotReadsOnlyThatSlotsFiles() throws Exception {
        GroupCoordinator writer = new GroupCoordinator(clusterDir, timer);
        int slot = GroupCoordinator.slotFor("g");
        String elsewhere = otherSlotThan(slot);
        assertThat(writer.commit("g", "", null, -1, List.of(at(5)))).isEqualTo(Errors.NONE);
        GroupCoordinator taker = new GroupCoordinator(clusterDir, timer);
        taker.coordinateWhenTaken(() -> true);
        // Another slot's file, damaged after the start: a takeover of this slot that parsed it would fail.
        java.nio.file.Files.writeString(new OffsetStore(clusterDir).file(elsewhere), "{not json");
        assertThat(writer.commit("g", "", null, -1, List.of(at(6)))).isEqualTo(Errors.NONE);
        taker.takeCoordination(slot, 1);
        assertThat(taker.committed("g")).as("re-read at the takeover").containsValue(at(6));
    }

    private static String otherSlotThan(int slot) {
        for (int i = 0; ; i++) {
            if (GroupCoordinator.slotFor("other-" + i) != slot) {
                return "other-" + i;
            }
        }
    }
}
