package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionSmokeTest {
    @TempDir
    Path dir;

    @Test
    void appendReadReopen() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        try (DiskStorageEngine e = new DiskStorageEngine(EngineConfig.defaults(dir))) {
            e.createTopic("t", 1, TopicConfig.EMPTY);
            PartitionLog p = e.partition(tp);
            AppendResult r1 = p.append(TestBatches.batch(3, 1000), Acks.ALL, -1).get();
            AppendResult r2 = p.append(TestBatches.batch(2, 2000), Acks.ALL, -1).get();
            assertThat(r1.baseOffset()).isEqualTo(0);
            assertThat(r2.baseOffset()).isEqualTo(3);
            assertThat(p.state().highWatermark()).isEqualTo(5);
            FetchResult f = p.read(3, 1 << 20, Long.MAX_VALUE);
            assertThat(f.records().getLong(0)).isEqualTo(3);
        }
        try (DiskStorageEngine e = new DiskStorageEngine(EngineConfig.defaults(dir))) {
            PartitionLog p = e.partition(tp);
            assertThat(p.state().highWatermark()).isEqualTo(5);
            assertThat(p.read(0, 1, Long.MAX_VALUE).records().getLong(0)).isEqualTo(0);
        }
    }
}
