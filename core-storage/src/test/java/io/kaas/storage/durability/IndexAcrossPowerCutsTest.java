package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.TornTail;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regressions: recovery trusts a closed segment's index when it looks sane, so an index must never be
 * left where a power cut can tear it into plausible but wrong entries (PowerCutProperties found one:
 * entry "offset 54 at byte 2591" where the batch at 2591 held offset 56, and reads at an offset in the
 * log found nothing).
 */
class IndexAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private FaultyDisk disk;

    @BeforeEach
    void setUp() throws Exception {
        disk = FaultyDisk.create(c -> c.withSegmentBytes(2048).withIndexIntervalBytes(0));
        disk.open().createTopic("t", 1, TopicConfig.EMPTY);
    }

    @AfterEach
    void tearDown() throws Exception {
        disk.close();
    }

    private Path partitionDir() {
        return disk.partitionDir(TP);
    }

    private void powerCut() throws Exception {
        disk.powerCutAndReopen(TornTail.DROP, 0);
    }

    /** The deferred fsync of a rolled segment's index could lose the race with a power cut. */
    @Test
    void aRolledSegmentsIndexIsDurableWhenTheRollReturns() throws Exception {
        PartitionLog log = disk.engine().partition(TP);
        while (segmentLogs().count() < 2) {
            log.append(TestBatches.batch(3, 1_000L), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        }
        Path closedIndex = partitionDir().resolve("00000000-00000000000000000000.index");
        long entries = Files.size(closedIndex);
        assertThat(entries).isPositive();
        powerCut();
        assertThat(Files.size(disk.fs().pathOf(closedIndex)))
                .as("closed segment's index after the cut")
                .isEqualTo(entries);
    }

    /**
     * An index ending in a partial entry (a torn tail) whose whole entries were right was left as it
     * was; the partition then cut the partial bytes and wrote its next entry over them without an
     * fsync, which a power cut can mix with the old bytes. Recovery now rewrites such an index durably.
     */
    @Test
    void anIndexWithAPartialEntryIsRewrittenDurably() throws Exception {
        disk.engine()
                .partition(TP)
                .append(TestBatches.batch(3, 1_000L), Acks.ALL, -1)
                .get(10, TimeUnit.SECONDS);
        disk.closeEngine();
        Path index = partitionDir().resolve("00000000-00000000000000000000.index");
        try (FileChannel ch = FileChannel.open(index, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.allocate(4)); // what a zero-filled torn tail leaves
            ch.force(true);
        }
        disk.open().partition(TP);
        powerCut();
        assertThat(Files.size(disk.fs().pathOf(index)) % 8)
                .as("index size after recovery and a cut")
                .isZero();
    }

    private Stream<Path> segmentLogs() throws Exception {
        try (Stream<Path> s = Files.list(partitionDir())) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).toList().stream();
        }
    }
}
