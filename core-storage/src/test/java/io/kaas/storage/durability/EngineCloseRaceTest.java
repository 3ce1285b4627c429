package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.FileSystem;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Regression: closing the engine while a committer drain was still running (acks=1 appends request an
 * fsync and do not wait for it) shut the watchdog timer first, so the drain's next fsync could not
 * schedule its timeout and died with an uncaught RejectedExecutionException on a kaas-committer thread.
 */
class EngineCloseRaceTest {
    @Test
    void closingWhileTheCommitterDrainsLeavesNoUncaughtException() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(
                (t, e) -> uncaught.add(new AssertionError(t.getName() + ": " + e, e)));
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            for (int i = 0; i < 300; i++) {
                DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(fs.getPath("/data" + i)));
                engine.createTopic("t", 1, TopicConfig.EMPTY);
                PartitionLog log = engine.partition(new TopicPartition("t", 0));
                for (int j = 0; j < 5; j++) {
                    log.append(TestBatches.batch(2, 1_000L), Acks.LEADER, -1).get();
                }
                engine.close();
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        assertThat(uncaught).isEmpty();
    }
}
