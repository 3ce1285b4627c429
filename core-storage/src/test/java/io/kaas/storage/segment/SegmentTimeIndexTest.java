package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentTimeIndexTest {
    @TempDir
    Path dir;

    @Test
    void aWalkFromTheHintFindsWhatAWalkFromTheStartFinds() throws Exception {
        int[] counts = new int[4000];
        Arrays.fill(counts, 10);
        SegmentBytes log = SegmentBytes.of(0, counts);
        SegmentName name = SegmentName.of(1, 0);
        Files.write(dir.resolve(name.logFileName()), log.bytes);
        try (Segment s = Segment.open(dir, name, new IndexPolicy(4096))) {
            SegmentTimeIndex index = new SegmentTimeIndex();
            for (long target = 0; target <= 4_001_000; target += 7_919) {
                long hint = index.startFor(s, target);
                var fromHint = s.firstBatchWithMaxTimestampAtLeast(target, 0, hint);
                var fromStart = s.firstBatchWithMaxTimestampAtLeast(target, 0, 0);
                assertThat(fromHint).as("target %d", target).isEqualTo(fromStart);
            }
            assertThat(index.entries()).isEqualTo((int) ((log.bytes.length - 1) / SegmentTimeIndex.SPACING_BYTES) + 1);
            assertThat(index.startFor(s, 4_000_000))
                    .as("a late target skips most of the segment")
                    .isGreaterThan(log.bytes.length - 2L * SegmentTimeIndex.SPACING_BYTES);
        }
    }
}
