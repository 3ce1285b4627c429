package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The header walks a segment opened from disk answers reads and timestamp lookups with. */
class SegmentWalkTest {
    @TempDir
    Path dir;

    /** Batches of 3, 1 and 5 records at offsets 100, 103, 104; batch i's max timestamp is 1000(i+1) + records - 1. */
    private final SegmentBytes log = SegmentBytes.of(100, 3, 1, 5);

    private Segment open() throws Exception {
        SegmentName name = SegmentName.of(1, 100);
        Files.write(dir.resolve(name.logFileName()), log.bytes);
        return Segment.open(dir, name, new IndexPolicy(4096));
    }

    @Test
    void positionOfFindsTheBatchHoldingAnOffset() throws Exception {
        try (Segment s = open()) {
            assertThat(s.positionOf(100, s.size())).isEqualTo(log.start(0));
            assertThat(s.positionOf(102, s.size())).isEqualTo(log.start(0));
            assertThat(s.positionOf(103, s.size())).isEqualTo(log.start(1));
            assertThat(s.positionOf(108, s.size())).isEqualTo(log.start(2));
            assertThat(s.positionOf(109, s.size())).isEqualTo(-1);
            assertThat(s.positionOf(104, log.end(1)))
                    .as("a limit hides the batches past it")
                    .isEqualTo(-1);
        }
    }

    @Test
    void wholeBatchesEndKeepsTheFirstBatchAndStopsAtMaxBytesCapAndLimit() throws Exception {
        try (Segment s = open()) {
            assertThat(s.wholeBatchesEnd(0, s.size(), Integer.MAX_VALUE, Long.MAX_VALUE))
                    .isEqualTo(log.bytes.length);
            assertThat(s.wholeBatchesEnd(0, s.size(), 1, Long.MAX_VALUE)).isEqualTo(log.end(0));
            assertThat(s.wholeBatchesEnd(0, s.size(), (int) log.end(1), Long.MAX_VALUE))
                    .isEqualTo(log.end(1));
            assertThat(s.wholeBatchesEnd(0, s.size(), Integer.MAX_VALUE, 104)).isEqualTo(log.end(1));
            assertThat(s.wholeBatchesEnd(0, s.size(), Integer.MAX_VALUE, 100)).isEqualTo(0);
            assertThat(s.wholeBatchesEnd(log.start(1), s.size() - 1, Integer.MAX_VALUE, Long.MAX_VALUE))
                    .isEqualTo(log.end(1));
        }
    }

    @Test
    void anIndexEntryThatPointsIntoABatchCostsALongerWalkNotAWrongRead() throws Exception {
        // The index is a hint, not evidence: its first entry is damaged (one byte past the batch holding 103),
        // its last one is right, so the open's check of the last entry lets the file through.
        SegmentName name = SegmentName.of(1, 100);
        Files.write(dir.resolve(name.logFileName()), log.bytes);
        java.nio.ByteBuffer index = java.nio.ByteBuffer.allocate(16);
        index.putInt(3).putInt((int) log.start(1) + 1).putInt(8).putInt((int) log.start(2));
        Files.write(dir.resolve(name.indexFileName()), index.array());
        try (Segment s = Segment.open(dir, name, new IndexPolicy(4096))) {
            assertThat(s.positionOf(103, s.size())).isEqualTo(log.start(1));
            assertThat(s.positionOf(108, s.size())).isEqualTo(log.start(2));
            assertThat(s.wholeBatchesEnd(0, s.size(), (int) log.end(1) + 1, Long.MAX_VALUE))
                    .as("whole batches only, walked from the read's own position")
                    .isEqualTo(log.end(1));
        }
    }

    @Test
    void firstBatchWithMaxTimestampAtLeastFindsTheSpanningBatchFromAPosition() throws Exception {
        try (Segment s = open()) {
            RecordBatchHeader h = s.firstBatchWithMaxTimestampAtLeast(1_500, 0, 0);
            assertThat(h.baseOffset()).isEqualTo(103);
            assertThat(h.maxTimestamp()).isEqualTo(2_000);
            assertThat(s.firstBatchWithMaxTimestampAtLeast(0, 0, 0).baseOffset())
                    .isEqualTo(100);
            assertThat(s.firstBatchWithMaxTimestampAtLeast(0, 103, 0).baseOffset())
                    .as("below log start")
                    .isEqualTo(103);
            assertThat(s.firstBatchWithMaxTimestampAtLeast(0, 102, 0).baseOffset())
                    .as("holds log start")
                    .isEqualTo(100);
            assertThat(s.firstBatchWithMaxTimestampAtLeast(3_005, 0, 0)).isNull();
            assertThat(s.firstBatchWithMaxTimestampAtLeast(0, 0, log.start(1)).baseOffset())
                    .as("from the second batch on")
                    .isEqualTo(103);
        }
    }

    @Test
    void maxTimestampOfASegmentOpenedFromDisk() throws Exception {
        try (Segment s = open()) {
            assertThat(s.maxTimestamp()).isEqualTo(3_004);
            assertThat(s.offsetOfMaxTimestamp()).isEqualTo(104);
        }
    }
}
