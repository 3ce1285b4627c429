package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.HeaderCursor.Framing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each way a header walk ends, at the byte where it ends. */
class HeaderCursorTest {
    @TempDir
    Path dir;

    private final SegmentBytes log = SegmentBytes.of(100, 3, 1, 5);

    @Test
    void wholeBatchesThenACleanEnd() throws Exception {
        try (FileChannel ch = log.open(dir.resolve("a.log"))) {
            HeaderCursor c = new HeaderCursor(ch, 0, ch.size());
            long offset = 100;
            for (int i = 0; i < 3; i++) {
                assertThat(c.next()).isEqualTo(Framing.BATCH);
                assertThat(c.position()).isEqualTo(log.start(i));
                assertThat(c.sizeInBytes()).isEqualTo(log.end(i) - log.start(i));
                assertThat(c.baseOffset()).isEqualTo(offset);
                RecordBatchHeader h = c.header();
                assertThat(c.lastOffset()).isEqualTo(h.lastOffset());
                assertThat(c.nextOffset()).isEqualTo(h.nextOffset());
                assertThat(c.maxTimestamp()).isEqualTo(h.maxTimestamp());
                assertThat(c.recordCount()).isEqualTo(h.recordCount());
                offset = h.nextOffset();
            }
            assertThat(c.next()).isEqualTo(Framing.END);
            assertThat(c.position()).isEqualTo(log.bytes.length);
            assertThat(c.next()).isEqualTo(Framing.END);
            assertThat(c.tailIsZeros()).isFalse();
        }
    }

    @Test
    void aRangeInsideTheFileEndsWhereTheRangeDoes() throws Exception {
        try (FileChannel ch = log.open(dir.resolve("a.log"))) {
            HeaderCursor c = new HeaderCursor(ch, log.start(1), log.end(1));
            assertThat(c.next()).isEqualTo(Framing.BATCH);
            assertThat(c.position()).isEqualTo(log.start(1));
            assertThat(c.next()).isEqualTo(Framing.END);
            HeaderCursor cut = new HeaderCursor(ch, log.start(1), log.end(1) - 1);
            assertThat(cut.next()).isEqualTo(Framing.PAST_END);
            assertThat(cut.position()).isEqualTo(log.start(1));
        }
    }

    @Test
    void aTornHeaderIsAShortHeader() throws Exception {
        byte[] torn = Arrays.copyOf(log.bytes, (int) log.start(2) + RecordBatchHeader.HEADER_SIZE - 1);
        try (FileChannel ch = log.withBytes(torn).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 2);
            assertThat(c.next()).isEqualTo(Framing.SHORT_HEADER);
            assertThat(c.position()).isEqualTo(log.start(2));
            assertThat(c.tailIsZeros()).isFalse();
        }
    }

    @Test
    void aRangeLongerThanTheFileIsAShortHeader() throws Exception {
        try (FileChannel ch = log.open(dir.resolve("a.log"))) {
            HeaderCursor c = new HeaderCursor(ch, log.start(2), log.bytes.length + 1_000L);
            assertThat(c.next()).isEqualTo(Framing.BATCH);
            assertThat(c.next()).isEqualTo(Framing.SHORT_HEADER);
            assertThat(c.position()).isEqualTo(log.bytes.length);
        }
    }

    @Test
    void aTornBatchRunsPastTheEnd() throws Exception {
        byte[] torn = Arrays.copyOf(log.bytes, log.bytes.length - 1);
        try (FileChannel ch = log.withBytes(torn).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 2);
            assertThat(c.next()).isEqualTo(Framing.PAST_END);
            assertThat(c.position()).isEqualTo(log.start(2));
            assertThatThrownBy(c::stepOver).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aZeroFilledTailIsABadLengthOfZeros() throws Exception {
        byte[] zeros = Arrays.copyOf(log.bytes, log.bytes.length + 4096);
        try (FileChannel ch = log.withBytes(zeros).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 3);
            assertThat(c.next()).isEqualTo(Framing.BAD_LENGTH);
            assertThat(c.position()).isEqualTo(log.bytes.length);
            assertThat(c.tailIsZeros()).isTrue();
        }
    }

    @Test
    void aNegativeLengthIsABadLength() throws Exception {
        byte[] bad = log.bytes.clone();
        ByteBuffer.wrap(bad).putInt((int) log.start(1) + RecordBatchHeader.LENGTH_OFFSET, -5);
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 1);
            assertThat(c.next()).isEqualTo(Framing.BAD_LENGTH);
            assertThat(c.position()).isEqualTo(log.start(1));
            assertThat(c.tailIsZeros()).isFalse();
        }
    }

    @Test
    void aBadMagicInAWholeFrameCanBeSteppedOver() throws Exception {
        byte[] bad = log.bytes.clone();
        bad[(int) log.start(1) + RecordBatchHeader.MAGIC_OFFSET] = 1;
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 1);
            assertThat(c.next()).isEqualTo(Framing.BAD_MAGIC);
            assertThat(c.position()).isEqualTo(log.start(1));
            assertThat(c.next()).as("a stop is sticky until stepped over").isEqualTo(Framing.BAD_MAGIC);
            c.stepOver();
            assertThat(c.next()).isEqualTo(Framing.BATCH);
            assertThat(c.position()).isEqualTo(log.start(2));
        }
    }

    @Test
    void aBadMagicWhoseLengthRunsPastTheEndIsATornBatch() throws Exception {
        byte[] bad = Arrays.copyOf(log.bytes, log.bytes.length - 1);
        bad[(int) log.start(2) + RecordBatchHeader.MAGIC_OFFSET] = 1;
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            HeaderCursor c = walkTo(ch, 2);
            assertThat(c.next()).isEqualTo(Framing.PAST_END);
        }
    }

    @Test
    void theStepRuleNeedsAWholeFrameInsideTheRange() {
        int min = RecordBatchHeader.HEADER_SIZE - RecordBatchHeader.LOG_OVERHEAD;
        assertThat(HeaderCursor.framesWholeBatch(min, RecordBatchHeader.HEADER_SIZE))
                .isTrue();
        assertThat(HeaderCursor.framesWholeBatch(min - 1, 1_000)).isFalse();
        assertThat(HeaderCursor.framesWholeBatch(min, RecordBatchHeader.HEADER_SIZE - 1))
                .isFalse();
        assertThat(HeaderCursor.framesWholeBatch(-1, 1_000)).isFalse();
        assertThat(HeaderCursor.framesWholeBatch(Integer.MAX_VALUE, Long.MAX_VALUE))
                .isFalse();
    }

    private static HeaderCursor walkTo(FileChannel ch, int batches) throws Exception {
        HeaderCursor c = new HeaderCursor(ch, 0, ch.size());
        for (int i = 0; i < batches; i++) {
            assertThat(c.next()).isEqualTo(Framing.BATCH);
        }
        return c;
    }
}
