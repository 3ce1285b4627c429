package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.CorruptBatchException.Reason;
import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one rule for going on past a bad batch, as recovery, verify and dump see it through the scanner. */
class BatchScannerStepOverTest {
    @TempDir
    Path dir;

    private final SegmentBytes log = SegmentBytes.of(0, 2, 2, 2);

    @Test
    void aBadCrcIsSteppedOverAndTheWalkGoesOn() throws Exception {
        byte[] bad = log.bytes.clone();
        bad[(int) log.end(1) - 1] ^= 1;
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("a.log"), 0);
            assertThat(s.next()).isNotNull();
            assertThat(s.next()).isNull();
            assertThat(s.stopReason().reason()).isEqualTo(Reason.BAD_CRC);
            assertThat(s.position()).isEqualTo(log.start(1));
            assertThat(s.canStepOver()).isTrue();
            assertThat(s.validDataFollows()).isTrue();
            assertThat(s.position()).as("asking does not move the scanner").isEqualTo(log.start(1));
            ScannedBatch stepped = s.stepOver();
            assertThat(stepped.position()).isEqualTo(log.start(1));
            assertThat(stepped.nextPosition()).isEqualTo(log.end(1));
            assertThat(stepped.bytes().remaining()).isEqualTo((int) (log.end(1) - log.start(1)));
            assertThat(s.stopReason()).isNull();
            ScannedBatch third = s.next();
            assertThat(third.position()).isEqualTo(log.start(2));
            assertThat(s.next()).isNull();
            assertThat(s.stopReason()).isNull();
        }
    }

    @Test
    void aBadMagicInTheMiddleIsDamageNotATornTail() throws Exception {
        byte[] bad = log.bytes.clone();
        bad[(int) log.start(1) + RecordBatchHeader.MAGIC_OFFSET] = 3;
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("a.log"), 0);
            s.next();
            assertThat(s.next()).isNull();
            assertThat(s.stopReason().reason()).isEqualTo(Reason.BAD_MAGIC);
            assertThat(s.validDataFollows()).isTrue();
            assertThat(s.stepOver().header().magic()).isEqualTo((byte) 3);
        }
    }

    @Test
    void aBadLastBatchHasNoValidDataAfterItButCanStillBeSteppedOver() throws Exception {
        byte[] bad = log.bytes.clone();
        bad[bad.length - 1] ^= 1;
        try (FileChannel ch = log.withBytes(bad).open(dir.resolve("a.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("a.log"), 0);
            while (s.next() != null) {
                // to the stop
            }
            assertThat(s.position()).isEqualTo(log.start(2));
            assertThat(s.canStepOver()).isTrue();
            assertThat(s.validDataFollows()).isFalse();
        }
    }

    @Test
    void aTornTailOrBadLengthCannotBeSteppedOver() throws Exception {
        byte[] torn = Arrays.copyOf(log.bytes, log.bytes.length - 3);
        try (FileChannel ch = log.withBytes(torn).open(dir.resolve("a.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("a.log"), 0);
            while (s.next() != null) {
                // to the stop
            }
            assertThat(s.stopReason().reason()).isEqualTo(Reason.TRUNCATED);
            assertThat(s.canStepOver()).isFalse();
            assertThat(s.stepOver()).isNull();
            assertThat(s.validDataFollows()).isFalse();
        }
        byte[] badLength = log.bytes.clone();
        ByteBuffer.wrap(badLength).putInt((int) log.start(1) + RecordBatchHeader.LENGTH_OFFSET, 10);
        try (FileChannel ch = log.withBytes(badLength).open(dir.resolve("b.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("b.log"), 0);
            s.next();
            assertThat(s.next()).isNull();
            assertThat(s.stopReason().reason()).isEqualTo(Reason.BAD_LENGTH);
            assertThat(s.canStepOver()).isFalse();
        }
    }

    @Test
    void offsetsGoingBackIsSteppedOverAndTheNextBatchIsNotJudgedAgainstIt() throws Exception {
        byte[] back = log.bytes.clone();
        RecordBatchHeader.assignOffsetAndEpoch(ByteBuffer.wrap(back), (int) log.start(2), 0, 0);
        try (FileChannel ch = log.withBytes(back).open(dir.resolve("a.log"))) {
            BatchScanner s = BatchScanner.ofWholeFile(ch, dir.resolve("a.log"), 0);
            s.next();
            s.next();
            assertThat(s.next()).isNull();
            assertThat(s.stopReason().reason()).isEqualTo(Reason.BAD_OFFSET_RANGE);
            assertThat(s.stepOver().position()).isEqualTo(log.start(2));
            assertThat(s.next()).isNull();
            assertThat(s.stopReason()).isNull();
        }
    }
}
