package io.kaas.storage.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.TestBatches;
import io.kaas.storage.format.CorruptBatchException.Reason;
import java.nio.ByteBuffer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

class BatchValidatorTest {
    @Test
    void headerFieldsMatchKafkasOwnReading() {
        ByteBuffer b = TestBatches.batch(5, 1234L, Compression.NONE, 42L, (short) 3, 7);
        RecordBatchHeader h = BatchValidator.validateProduced(b, 0, b.limit());
        DefaultRecordBatch kafka = (DefaultRecordBatch) MemoryRecords.readableRecords(b.duplicate())
                .batches()
                .iterator()
                .next();
        assertThat(h.sizeInBytes()).isEqualTo(kafka.sizeInBytes());
        assertThat(h.recordCount()).isEqualTo(kafka.countOrNull());
        assertThat(h.lastOffsetDelta()).isEqualTo((int) (kafka.lastOffset() - kafka.baseOffset()));
        assertThat(h.producerId()).isEqualTo(42L);
        assertThat(h.producerEpoch()).isEqualTo((short) 3);
        assertThat(h.baseSequence()).isEqualTo(7);
        assertThat(h.lastSequence()).isEqualTo(kafka.lastSequence());
        assertThat(h.maxTimestamp()).isEqualTo(kafka.maxTimestamp());
        assertThat(h.crc()).isEqualTo((int) kafka.checksum());
    }

    @Test
    void rewritingOffsetAndEpochKeepsTheCrcValid() {
        ByteBuffer b = TestBatches.batch(3, 1L);
        RecordBatchHeader.assignOffsetAndEpoch(b, 0, 12345L, 9);
        RecordBatchHeader h = BatchValidator.validateStored(b, 0, b.limit(), 0);
        assertThat(h.baseOffset()).isEqualTo(12345L);
        assertThat(h.partitionLeaderEpoch()).isEqualTo(9);
        assertThat(MemoryRecords.readableRecords(b.duplicate())
                        .batches()
                        .iterator()
                        .next()
                        .isValid())
                .isTrue();
    }

    @Test
    void aFlippedByteIsABadCrc() {
        ByteBuffer b = TestBatches.batch(3, 1L);
        b.put(b.limit() - 2, (byte) (b.get(b.limit() - 2) ^ 0x40));
        assertThatThrownBy(() -> BatchValidator.validateProduced(b, 0, b.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_CRC));
    }

    @Test
    void wrongMagicAndLengthAreRefused() {
        ByteBuffer magic = TestBatches.batch(1, 1L);
        magic.put(RecordBatchHeader.MAGIC_OFFSET, (byte) 1);
        assertThatThrownBy(() -> BatchValidator.validateProduced(magic, 0, magic.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC));
        ByteBuffer longer = TestBatches.batch(1, 1L);
        longer.putInt(RecordBatchHeader.LENGTH_OFFSET, longer.getInt(RecordBatchHeader.LENGTH_OFFSET) + 10);
        assertThatThrownBy(() -> BatchValidator.validateProduced(longer, 0, longer.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
        ByteBuffer tiny = TestBatches.batch(1, 1L);
        tiny.putInt(RecordBatchHeader.LENGTH_OFFSET, 3);
        assertThatThrownBy(() -> BatchValidator.validateProduced(tiny, 0, tiny.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_LENGTH));
    }

    @Test
    void aHeaderLyingAboutItsRecordCountIsRefusedEvenWithAValidCrc() {
        ByteBuffer b = TestBatches.batch(2, 1L);
        b.putInt(RecordBatchHeader.RECORDS_COUNT_OFFSET, 500);
        b.putInt(RecordBatchHeader.LAST_OFFSET_DELTA_OFFSET, 499);
        b.putInt(RecordBatchHeader.CRC_OFFSET, RecordBatchHeader.computeCrc(b, 0, b.limit()));
        assertThatThrownBy(() -> BatchValidator.validateProduced(b, 0, b.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_RECORD_COUNT));
        ByteBuffer c = TestBatches.batch(2, 1L);
        c.putInt(RecordBatchHeader.RECORDS_COUNT_OFFSET, 3);
        c.putInt(RecordBatchHeader.CRC_OFFSET, RecordBatchHeader.computeCrc(c, 0, c.limit()));
        assertThatThrownBy(() -> BatchValidator.validateProduced(c, 0, c.limit()))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class,
                        e -> assertThat(e.getMessage()).contains("lastOffsetDelta"));
    }

    /** Fuzz: any bytes either validate or fail with CorruptBatchException, never anything else. */
    @Property(tries = 2000)
    void randomBytesNeverEscapeAsOtherExceptions(@ForAll @Size(max = 300) byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            BatchValidator.validateProduced(b, 0, b.limit());
        } catch (CorruptBatchException expected) {
            assertThat(expected.reason()).isNotNull();
        }
    }

    /** Fuzz: one flipped byte anywhere in a real batch is always caught. */
    @Property(tries = 500)
    void anySingleByteFlipIsDetected(
            @ForAll @IntRange(min = 0, max = 10_000) int where, @ForAll @IntRange(min = 1, max = 255) int mask) {
        ByteBuffer b = TestBatches.batch(4, 99L, Compression.NONE, 5L, (short) 0, 0);
        int pos = RecordBatchHeader.MAGIC_OFFSET + where % (b.limit() - RecordBatchHeader.MAGIC_OFFSET);
        b.put(pos, (byte) (b.get(pos) ^ mask));
        assertThatThrownBy(() -> BatchValidator.validateProduced(b, 0, b.limit()))
                .isInstanceOf(CorruptBatchException.class);
    }
}
