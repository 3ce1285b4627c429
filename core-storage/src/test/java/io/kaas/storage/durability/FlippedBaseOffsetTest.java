package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression (found by RecoveryScanFuzzProperties): baseOffset is outside the CRC, so one flipped high
 * bit made a batch look valid at an offset far beyond what a segment's 32-bit index can hold; the
 * scan then failed writing the index (an IO error at open) instead of reporting damage.
 */
class FlippedBaseOffsetTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @Test
    void aBaseOffsetThatCannotBelongToTheSegmentIsDamageNotACrash() throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path data = fs.getPath("/data");
            EngineConfig config = EngineConfig.defaults(data).withIndexIntervalBytes(0);
            int batchSize;
            try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
                engine.createTopic("t", 1, TopicConfig.EMPTY);
                PartitionLog log = engine.partition(TP);
                for (int i = 0; i < 3; i++) {
                    log.append(TestBatches.batch(2, 1_000L), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
                }
                batchSize = TestBatches.batch(2, 1_000L).remaining();
            }
            Path dir = data.resolve("t").resolve("0");
            Path segment = dir.resolve("00000000-00000000000000000000.log");
            byte[] bytes = Files.readAllBytes(segment);
            bytes[batchSize + 2] ^= 0x20; // the second batch's baseOffset: 2 -> 2 + 2^45
            Files.write(segment, bytes);
            Files.deleteIfExists(dir.resolve("recovery-checkpoint.json"));

            try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
                assertThatThrownBy(() -> engine.partition(TP))
                        .isInstanceOfSatisfying(
                                StorageException.class,
                                e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED));
            }
            // recover --force: cut at the bad batch, keep the one before it.
            RecoveryReport report = RecoveryScan.run(
                    dir,
                    new RecoveryOptions(
                            false, RecoveryOptions.DamagePolicy.TRUNCATE, new IndexPolicy(0), true, 0, true));
            assertThat(report.damage()).anySatisfy(d -> assertThat(d).contains(segment + ":" + batchSize));
            assertThat(Files.size(segment)).isEqualTo(batchSize);
            try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
                assertThat(engine.partition(TP).state().highWatermark()).isEqualTo(2);
            }
        }
    }
}
