package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResyncScanTest {
    @TempDir
    Path dir;

    private static final List<ByteBuffer> TEN = LogFixture.plain(0, 10, 5);

    /** Where batch {@code i} of {@link #TEN} starts. */
    private static long positionOf(int i) {
        return LogFixture.concat(TEN.subList(0, i)).length;
    }

    /** Ten batches of 5 records from offset 0, with the length field of the fourth replaced. */
    private Path logWithBadLength(int length) throws Exception {
        byte[] bytes = LogFixture.concat(TEN);
        ByteBuffer.wrap(bytes).putInt((int) positionOf(3) + 8, length);
        Path log = dir.resolve("l.log");
        Files.write(log, bytes);
        return log;
    }

    @Test
    void findsTheNextBatchContinuingTheLogAfterABadLength() throws Exception {
        Path log = logWithBadLength(0x7fff0000);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            ResyncScan.Found found = ResyncScan.find(ch, positionOf(3) + 1, ch.size(), 15, Integer.MAX_VALUE);
            assertThat(found).isNotNull();
            assertThat(found.position()).isEqualTo(positionOf(4));
            assertThat(found.header().baseOffset()).isEqualTo(20);
        }
    }

    @Test
    void batchesWhoseOffsetsDoNotContinueTheLogAreNotEvidence() throws Exception {
        Path log = logWithBadLength(10);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            assertThat(ResyncScan.find(ch, positionOf(3) + 1, ch.size(), 1_000, Integer.MAX_VALUE))
                    .as("all below 1000")
                    .isNull();
            assertThat(ResyncScan.find(ch, positionOf(3) + 1, ch.size(), 0, 40))
                    .as("a batch past the limit is not one")
                    .satisfies(f -> assertThat(f.header().lastOffset()).isLessThanOrEqualTo(40));
        }
    }

    @Test
    void aHeaderThatFailsItsCrcIsSkippedAndAFileOfGarbageHoldsNothing() throws Exception {
        byte[] bytes = LogFixture.concat(TEN);
        bytes[(int) positionOf(1) + 40] ^= 1; // the second batch's CRC no longer holds
        Path log = dir.resolve("crc.log");
        Files.write(log, bytes);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            assertThat(ResyncScan.find(ch, 1, ch.size(), 0, Integer.MAX_VALUE).position())
                    .isEqualTo(positionOf(2));
        }
        Path zeros = dir.resolve("zeros.log");
        Files.write(zeros, new byte[3 << 20]);
        try (FileChannel ch = FileChannel.open(zeros, StandardOpenOption.READ)) {
            assertThat(ResyncScan.find(ch, 0, ch.size(), 0, Integer.MAX_VALUE)).isNull();
        }
    }

    @Test
    void aBatchAcrossTheSearchsReadChunksIsFound() throws Exception {
        List<ByteBuffer> batches = LogFixture.plain(0, 20_000, 1);
        byte[] bytes = LogFixture.concat(batches);
        Path log = dir.resolve("big.log");
        Files.write(log, bytes);
        long chunkEnd = 1 + (1L << 20);
        for (int near = -70; near <= 70; near += 7) {
            long position = 0;
            ByteBuffer target = null;
            for (ByteBuffer b : batches) {
                if (position + b.remaining() > chunkEnd + near) {
                    target = b;
                    break;
                }
                position += b.remaining();
            }
            long base = target.getLong(0);
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
                ResyncScan.Found found = ResyncScan.find(ch, 1, ch.size(), base, Integer.MAX_VALUE);
                assertThat(found).as("near %d", near).isNotNull();
                assertThat(found.position()).as("near %d", near).isEqualTo(position);
            }
        }
    }
}
