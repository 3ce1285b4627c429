package io.kaas.storage.testfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The disk engine runs unchanged on the wrapper (every filesystem call it makes is supported) and
 * what it acknowledged with acks=all survives a power cut. Other modules' power-cut suites go
 * further; this keeps the wrapper honest about what the engine needs.
 */
class EngineOnFaultyFileSystemTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private FaultyDisk disk;
    private StorageEngine engine;

    @BeforeEach
    void setUp() throws Exception {
        // The data directory exists, durably, before the engine starts, as an operator's would.
        disk = FaultyDisk.create(c -> c.withSegmentBytes(4096));
        engine = disk.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        disk.close();
    }

    private static long append(PartitionLog log) throws Exception {
        AppendResult r = log.append(TestBatches.batch(3, 1_000L), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        return r.lastOffset();
    }

    @Test
    void runsTheEngineAndClosesEveryFile() throws Exception {
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        PartitionLog log = engine.partition(TP);
        long forcesBefore = disk.fs().forceCounts().total();
        for (int i = 0; i < 40; i++) {
            append(log);
        }
        assertThat(disk.fs().forceCounts().total() - forcesBefore)
                .as("acks=all appends fsync")
                .isGreaterThanOrEqualTo(40);
        FetchResult read = log.read(0, 1 << 20, Long.MAX_VALUE);
        assertThat(read.records().remaining()).isPositive();
        disk.closeEngine();
        assertThat(disk.fs().openFiles()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TornTail.class)
    void acknowledgedAppendsSurviveAPowerCutAcrossSegmentRolls(TornTail tail) throws Exception {
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        long acked = -1;
        for (int cycle = 0; cycle < 5; cycle++) {
            PartitionLog log = engine.partition(TP);
            for (int i = 0; i < 30; i++) {
                acked = append(log);
            }
            // acks=1 appends after the last acks=all one: written, maybe fsynced, torn by the cut.
            for (int i = 0; i < 3; i++) {
                log.append(TestBatches.batch(3, 1_000L), Acks.LEADER, -1).get(10, TimeUnit.SECONDS);
            }
            // The old engine lives in the dead world; its calls fail, closing it too.
            engine = disk.powerCutAndReopen(tail, cycle);
            PartitionLog reopened = engine.partition(TP);
            assertThat(reopened.state().highWatermark()).as("cycle %d", cycle).isGreaterThan(acked);
            ByteBuffer all = reopened.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records();
            assertThat(all.remaining()).isPositive();
        }
    }
}
