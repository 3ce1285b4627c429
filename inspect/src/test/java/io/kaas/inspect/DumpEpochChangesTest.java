package io.kaas.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dump-segment over a partition whose leader changed epoch on a shared directory, with and without a zombie's late writes. */
class DumpEpochChangesTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private DiskStorageEngine engine() {
        return DiskStorageEngine.shared(EngineConfig.defaults(dir), EngineObserver.NONE);
    }

    private static void append(DiskStorageEngine e) {
        e.partition(TP).append(TestBatches.batch(1, 1_000), Acks.ALL, -1).join();
    }

    @Test
    void segmentsOfSuccessiveEpochsAreCleanAndAZombiesLateWritesAreNamed() {
        Path partition = dir.resolve("t/0");
        Path epoch1 = partition.resolve(SegmentName.of(1, 0).logFileName());
        DiskStorageEngine zombie = engine();
        zombie.createTopic("t", 1, TopicConfig.EMPTY);
        zombie.takeOver(TP, 1);
        append(zombie);
        append(zombie);
        try (DiskStorageEngine owner = engine()) {
            owner.takeOver(TP, 2);
            append(owner);
            Path epoch2 = partition.resolve(SegmentName.of(2, 2).logFileName());
            DumpRun clean = DumpRun.of(DumpOptions.DEFAULTS, epoch1, epoch2);
            assertThat(clean.exit()).as(clean.err()).isEqualTo(ExitCodes.OK);
            assertThat(clean.batchLines()).hasSize(3);

            append(zombie); // epoch 1 writes on at offset 2, after epoch 2 began there
            owner.release(TP);
        }
        zombie.abandon(TP);
        zombie.close();

        DumpRun late = DumpRun.of(DumpOptions.DEFAULTS, epoch1);
        assertThat(late.exit()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(late.batchLines()).as("still shown").hasSize(3);
        assertThat(late.err())
                .contains(epoch1 + ":")
                .contains("offsets from 2 on were written by leader epoch 1 after a later epoch " + "began at offset 2")
                .contains("fenced ex-leader's late writes");

        DumpRun checkpoint = DumpRun.of(DumpOptions.DEFAULTS, partition.resolve(LeaderEpochCheckpoint.FILE_NAME));
        assertThat(checkpoint.exit()).isEqualTo(ExitCodes.OK);
        assertThat(checkpoint.out()).contains("\"epoch\" : 2").contains("\"startOffset\" : 2");
    }
}
