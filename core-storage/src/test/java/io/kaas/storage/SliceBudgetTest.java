package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zero-copy sends hold their files open, so they may take only half the file budget: a Fetch over more
 * partitions than that gets copies for the rest, the same bytes, and slices again once sends let go.
 */
class SliceBudgetTest {
    @TempDir
    Path dir;

    @Test
    void slicesPastHalfTheBudgetBecomeCopiesOfTheSameBytes() throws Exception {
        try (DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(dir).withMaxOpenFiles(16))) {
            engine.createTopic("t", 12, TopicConfig.EMPTY);
            List<PartitionLog> logs = new ArrayList<>();
            for (int p = 0; p < 12; p++) {
                PartitionLog log = engine.partition(new TopicPartition("t", p));
                log.append(TestBatches.batch(2, 1_000L), Acks.ALL, -1).get();
                logs.add(log);
            }
            List<FetchResult> results = new ArrayList<>();
            for (PartitionLog log : logs) {
                results.add(log.readForTransfer(0, 1 << 20, 2));
            }
            assertThat(results.stream().filter(r -> r.file() != null).count()).isEqualTo(8);
            assertThat(engine.files().sendsInFlight()).isEqualTo(8);
            for (int p = 0; p < 12; p++) {
                FetchResult copy = logs.get(p).read(0, 1 << 20, 2);
                assertThat(results.get(p).sizeInBytes()).isEqualTo(copy.sizeInBytes());
                if (results.get(p).file() == null) {
                    assertThat(results.get(p).records()).isEqualTo(copy.records());
                }
            }
            results.stream().filter(r -> r.file() != null).forEach(r -> r.file().release());
            assertThat(engine.files().sendsInFlight()).isZero();
            FetchResult again = logs.get(11).readForTransfer(0, 1 << 20, 2);
            assertThat(again.file()).isNotNull();
            again.file().release();
            assertThat(engine.files().openChannels()).isLessThanOrEqualTo(16);
        }
    }
}
