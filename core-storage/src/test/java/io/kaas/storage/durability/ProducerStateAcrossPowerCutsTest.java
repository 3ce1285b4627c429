package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.TornTail;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regressions: the idempotence window must survive power cuts, so that a producer retrying an
 * acknowledged batch after the broker came back gets the original offset (not a second copy) and
 * its next sequence is accepted (not OUT_OF_ORDER_SEQUENCE).
 */
class ProducerStateAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long PID = 42;

    private FaultyDisk disk;

    @BeforeEach
    void setUp() throws Exception {
        disk = FaultyDisk.create(c -> c.withSegmentBytes(1024));
        disk.open().createTopic("t", 1, TopicConfig.EMPTY);
    }

    @AfterEach
    void tearDown() throws Exception {
        disk.close();
    }

    private void powerCut() throws Exception {
        disk.powerCutAndReopen(TornTail.DROP, 1);
    }

    private AppendResult append(java.nio.ByteBuffer batch) throws Exception {
        return disk.engine().partition(TP).append(batch, Acks.ALL, -1).get(10, TimeUnit.SECONDS);
    }

    /**
     * The first crash's recovery scanned the tail and replayed it into memory only, then wrote a
     * recovery checkpoint at EOF; a second crash resumed from that checkpoint, so the replayed
     * producer state was lost (no snapshot covered it).
     */
    @Test
    void aSecondCrashAfterRecoveryKeepsTheProducerState() throws Exception {
        long original = append(TestBatches.idempotent(PID, (short) 0, 0, 2)).baseOffset();
        powerCut();
        disk.engine().partition(TP); // open = recovery
        powerCut();
        AppendResult retry = append(TestBatches.idempotent(PID, (short) 0, 0, 2));
        assertThat(retry.duplicate())
                .as("retry after two crashes is a duplicate")
                .isTrue();
        assertThat(retry.baseOffset()).isEqualTo(original);
        assertThat(append(TestBatches.idempotent(PID, (short) 0, 2, 2)).duplicate())
                .isFalse();
        assertThat(disk.engine().partition(TP).state().highWatermark()).isEqualTo(4);
    }

    /**
     * Recovery replays only the active segment; batches in a segment closed since the last snapshot
     * were never replayed, so a producer whose last batch sits there was forgotten.
     */
    @Test
    void aProducerWhoseLastBatchIsInAClosedSegmentIsRemembered() throws Exception {
        PartitionLog log = disk.engine().partition(TP);
        AppendResult last = null;
        for (int seq = 0; seq < 6; seq += 2) {
            last = append(TestBatches.idempotent(PID, (short) 0, seq, 2));
        }
        // Other traffic rolls the segment at least once after the producer's last batch.
        int segmentsBefore = segmentCount();
        while (segmentCount() < segmentsBefore + 2) {
            log.append(TestBatches.batch(3, 1_000L), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        }
        powerCut();
        AppendResult retry = append(TestBatches.idempotent(PID, (short) 0, 4, 2));
        assertThat(retry.duplicate())
                .as("retry of the last acknowledged batch is a duplicate")
                .isTrue();
        assertThat(retry.baseOffset()).isEqualTo(last.baseOffset());
        AppendResult next = append(TestBatches.idempotent(PID, (short) 0, 6, 2));
        assertThat(next.duplicate()).isFalse();
    }

    private int segmentCount() throws Exception {
        try (var s = Files.list(disk.partitionDir(TP))) {
            return (int)
                    s.filter(p -> p.getFileName().toString().endsWith(".log")).count();
        }
    }
}
