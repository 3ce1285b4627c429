package io.kaas.storage.format;

import io.kaas.storage.format.CorruptBatchException.Reason;
import java.nio.ByteBuffer;

/**
 * Framing and CRC checks on v2 batches, reading headers only.
 *
 * <p>Two levels: {@link #validateStored} is what any batch in a log must satisfy (also compacted
 * ones, where record count and offset delta may differ); {@link #validateProduced} adds Kafka's
 * producer-side rules (LogValidator): count = lastOffsetDelta + 1, count &gt; 0, and for uncompressed
 * batches enough bytes to hold that many records.
 */
public final class BatchValidator {
    private BatchValidator() {}

    /**
     * Validates the batch at {@code pos} of {@code buf} whose bytes end at {@code limit}; returns the
     * header. {@code filePosition} is only used for messages and the exception's position.
     */
    public static RecordBatchHeader validateStored(ByteBuffer buf, int pos, int limit, long filePosition) {
        int available = limit - pos;
        if (available < RecordBatchHeader.HEADER_SIZE) {
            throw new CorruptBatchException(
                    Reason.TRUNCATED,
                    filePosition,
                    "batch header truncated: " + available + " of " + RecordBatchHeader.HEADER_SIZE + " bytes");
        }
        int batchLength = buf.getInt(pos + RecordBatchHeader.LENGTH_OFFSET);
        if (batchLength < RecordBatchHeader.HEADER_SIZE - RecordBatchHeader.LOG_OVERHEAD) {
            throw new CorruptBatchException(
                    Reason.BAD_LENGTH,
                    filePosition,
                    "batch length " + batchLength + " is smaller than the v2 header ("
                            + (RecordBatchHeader.HEADER_SIZE - RecordBatchHeader.LOG_OVERHEAD) + ")");
        }
        byte magic = buf.get(pos + RecordBatchHeader.MAGIC_OFFSET);
        if (magic != RecordBatchHeader.MAGIC_V2) {
            throw new CorruptBatchException(Reason.BAD_MAGIC, filePosition, "magic " + magic + ", expected 2");
        }
        long size = (long) batchLength + RecordBatchHeader.LOG_OVERHEAD;
        if (size > available) {
            throw new CorruptBatchException(
                    Reason.TRUNCATED, filePosition, "batch of " + size + " bytes but only " + available + " available");
        }
        RecordBatchHeader header = RecordBatchHeader.peek(buf, pos);
        int actual = RecordBatchHeader.computeCrc(buf, pos, (int) size);
        if (actual != header.crc()) {
            throw new CorruptBatchException(
                    Reason.BAD_CRC,
                    filePosition,
                    String.format("CRC mismatch: stored %08x, computed %08x", header.crc(), actual));
        }
        if (header.lastOffsetDelta() < 0) {
            throw new CorruptBatchException(
                    Reason.BAD_OFFSET_RANGE, filePosition, "negative lastOffsetDelta " + header.lastOffsetDelta());
        }
        return header;
    }

    /** {@link #validateStored} plus the rules Kafka applies to batches a producer sends. */
    public static RecordBatchHeader validateProduced(ByteBuffer buf, int pos, int limit) {
        RecordBatchHeader h = validateStored(buf, pos, limit, pos);
        if (h.recordCount() <= 0) {
            throw new CorruptBatchException(Reason.BAD_RECORD_COUNT, pos, "record count " + h.recordCount());
        }
        if ((long) h.lastOffsetDelta() + 1 != h.recordCount()) {
            throw new CorruptBatchException(
                    Reason.BAD_RECORD_COUNT,
                    pos,
                    "record count " + h.recordCount() + " disagrees with lastOffsetDelta " + h.lastOffsetDelta());
        }
        long recordBytes = h.sizeInBytes() - RecordBatchHeader.HEADER_SIZE;
        if (h.compressionCodec() == 0 && (long) h.recordCount() * RecordBatchHeader.MIN_RECORD_SIZE > recordBytes) {
            throw new CorruptBatchException(
                    Reason.BAD_RECORD_COUNT,
                    pos,
                    "record count " + h.recordCount() + " cannot fit in " + recordBytes + " bytes of records");
        }
        return h;
    }
}
