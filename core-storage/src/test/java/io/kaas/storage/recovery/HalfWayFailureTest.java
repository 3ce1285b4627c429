package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recovery whose writes fail half-way (on the fault-injecting filesystem: the fsync of the cut log fails) says
 * which files it had already changed, so the operator knows what the failed run left.
 */
class HalfWayFailureTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final String LOG0 = "00000000-00000000000000000000.log";

    @TempDir
    Path tmp;

    @Test
    void aRecoveryThatFailsHalfWayNamesTheFilesItAlreadyChanged() throws Exception {
        try (FaultyFileSystem fs = FaultyFileSystem.wrap(tmp)) {
            Path dir = partitionWithTornTail(fs.root().resolve("data"));
            Path stray = Files.writeString(dir.resolve("stray.tmp"), "left by a crash");
            Path log = dir.resolve(LOG0);
            RecoveryOptions options = new RecoveryOptions(
                    false, RecoveryOptions.DamagePolicy.REFUSE, new IndexPolicy(4096), false, 0, true);

            fs.faults().failFsync(Scope.path(log), Repeat.ALWAYS);
            assertThatThrownBy(() -> RecoveryScan.run(dir, options))
                    .isInstanceOfSatisfying(StorageException.class, e -> {
                        assertThat(e.kind()).isEqualTo(StorageException.Kind.IO);
                        assertThat(e.getMessage())
                                .startsWith(dir + ": recovery failed: ")
                                .contains("already changed: " + stray + ", " + log);
                    });
            assertThat(stray).doesNotExist();
            fs.faults().clearFsyncFailure();
            assertThat(RecoveryScan.run(dir, options).refused()).isFalse();
        }
    }

    /** Five batches, closed cleanly, then 100 zero bytes past the checkpoint: a torn tail recovery cuts. */
    private static Path partitionWithTornTail(Path data) throws Exception {
        Files.createDirectories(data);
        Path dir;
        try (DiskStorageEngine e = new DiskStorageEngine(EngineConfig.defaults(data))) {
            e.createTopic("t", 1, TopicConfig.EMPTY);
            Partition p = e.openPartition(TP);
            for (int i = 0; i < 5; i++) {
                p.append(TestBatches.batch(2, 1_000L + i), Acks.ALL, -1).get();
            }
            dir = p.dir();
        }
        Files.write(dir.resolve(LOG0), new byte[100], StandardOpenOption.APPEND);
        return dir;
    }
}
