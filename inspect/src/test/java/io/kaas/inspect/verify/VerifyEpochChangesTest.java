package io.kaas.inspect.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** verify over a partition whose leader changed epoch on a shared directory, with and without a zombie's late writes. */
class VerifyEpochChangesTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private DiskStorageEngine engine() {
        return DiskStorageEngine.shared(EngineConfig.defaults(dir), EngineObserver.NONE);
    }

    private static void append(DiskStorageEngine e) {
        e.partition(TP).append(TestBatches.batch(1, 1_000), Acks.ALL, -1).join();
    }

    private List<Problem> verify() {
        List<Problem> problems = new ArrayList<>();
        new Verifier(new VerifyReport(problems::add)).verify(dir.resolve("t/0"), n -> {});
        return problems;
    }

    @Test
    void epochChangesAreCleanAndAZombiesLateWritesAreNamedAsSuch() {
        DiskStorageEngine zombie = engine();
        zombie.createTopic("t", 1, TopicConfig.EMPTY);
        zombie.takeOver(TP, 1);
        append(zombie);
        try (DiskStorageEngine owner = engine()) {
            owner.takeOver(TP, 2);
            append(owner);
            owner.release(TP);
            assertThat(verify()).as("two epochs, one after the other").isEmpty();
            owner.takeOver(TP, 3);
            append(zombie); // epoch 1 writes on after epochs 2 and 3 began
            owner.release(TP);
        }
        zombie.abandon(TP);
        zombie.close();
        List<Problem> problems = verify();
        assertThat(problems)
                .isNotEmpty()
                .allSatisfy(p -> assertThat(p.toString()).contains("late writes"));
    }
}
