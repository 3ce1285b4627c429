package io.kaas.storage.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The fixed 61-byte head of a Kafka v2 RecordBatch: the only bytes of a batch kaas ever reads.
 *
 * <pre>
 * baseOffset i64 @0 · batchLength i32 @8 · partitionLeaderEpoch i32 @12 · magic i8 @16 · crc u32 @17 ·
 * attributes i16 @21 · lastOffsetDelta i32 @23 · baseTimestamp i64 @27 · maxTimestamp i64 @35 ·
 * producerId i64 @43 · producerEpoch i16 @51 · baseSequence i32 @53 · recordCount i32 @57 · records @61
 * </pre>
 *
 * The CRC-32C covers bytes 21..end, so baseOffset and partitionLeaderEpoch can be rewritten in place
 * without touching anything the client signed. Records are never decoded.
 */
public record RecordBatchHeader(
        long baseOffset,
        int batchLength,
        int partitionLeaderEpoch,
        byte magic,
        int crc,
        short attributes,
        int lastOffsetDelta,
        long baseTimestamp,
        long maxTimestamp,
        long producerId,
        short producerEpoch,
        int baseSequence,
        int recordCount) {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + 8;
    /** Bytes before the length field's count starts: baseOffset + batchLength. */
    public static final int LOG_OVERHEAD = LENGTH_OFFSET + 4;

    public static final int PARTITION_LEADER_EPOCH_OFFSET = LOG_OVERHEAD;
    public static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + 4;
    public static final int CRC_OFFSET = MAGIC_OFFSET + 1;
    public static final int ATTRIBUTES_OFFSET = CRC_OFFSET + 4;
    public static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + 2;
    public static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4;
    public static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + 8;
    public static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + 8;
    public static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + 8;
    public static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + 2;
    public static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + 4;
    public static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + 4;
    /** Size of the header; also the smallest possible batch (zero records). */
    public static final int HEADER_SIZE = RECORDS_OFFSET;

    public static final byte MAGIC_V2 = 2;
    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final long NO_TIMESTAMP = -1L;

    private static final int COMPRESSION_CODEC_MASK = 0x07;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    private static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    private static final int CONTROL_FLAG_MASK = 0x20;
    /** A v2 record is at least 7 bytes: length, attributes, timestampDelta, offsetDelta, keyLen, valueLen, headerCount. */
    public static final int MIN_RECORD_SIZE = 7;

    /** Reads the header at {@code pos} of {@code buf} (absolute, big-endian); needs {@link #HEADER_SIZE} bytes. */
    public static RecordBatchHeader peek(ByteBuffer buf, int pos) {
        return new RecordBatchHeader(
                buf.getLong(pos + BASE_OFFSET_OFFSET),
                buf.getInt(pos + LENGTH_OFFSET),
                buf.getInt(pos + PARTITION_LEADER_EPOCH_OFFSET),
                buf.get(pos + MAGIC_OFFSET),
                buf.getInt(pos + CRC_OFFSET),
                buf.getShort(pos + ATTRIBUTES_OFFSET),
                buf.getInt(pos + LAST_OFFSET_DELTA_OFFSET),
                buf.getLong(pos + BASE_TIMESTAMP_OFFSET),
                buf.getLong(pos + MAX_TIMESTAMP_OFFSET),
                buf.getLong(pos + PRODUCER_ID_OFFSET),
                buf.getShort(pos + PRODUCER_EPOCH_OFFSET),
                buf.getInt(pos + BASE_SEQUENCE_OFFSET),
                buf.getInt(pos + RECORDS_COUNT_OFFSET));
    }

    /** Total bytes of the batch on disk and on the wire, including baseOffset and batchLength. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength;
    }

    public long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    public long nextOffset() {
        return lastOffset() + 1;
    }

    /** Kafka's compression codec id: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
    public int compressionCodec() {
        return attributes & COMPRESSION_CODEC_MASK;
    }

    public boolean isLogAppendTime() {
        return (attributes & TIMESTAMP_TYPE_MASK) != 0;
    }

    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes & CONTROL_FLAG_MASK) != 0;
    }

    public boolean hasProducerId() {
        return producerId > NO_PRODUCER_ID;
    }

    /** Last sequence number of the batch, wrapping at Integer.MAX_VALUE as Kafka does. */
    public int lastSequence() {
        if (baseSequence == NO_SEQUENCE) {
            return NO_SEQUENCE;
        }
        long last = (long) baseSequence + lastOffsetDelta;
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    /** CRC-32C over bytes 21..end of the batch starting at {@code pos}; reads the buffer without moving it. */
    public static int computeCrc(ByteBuffer buf, int pos, int sizeInBytes) {
        CRC32C crc = new CRC32C();
        ByteBuffer slice = buf.duplicate();
        slice.limit(pos + sizeInBytes).position(pos + ATTRIBUTES_OFFSET);
        crc.update(slice);
        return (int) crc.getValue();
    }

    /** Rewrites the two fields the broker owns, leaving the CRC-covered bytes untouched. */
    public static void assignOffsetAndEpoch(ByteBuffer buf, int pos, long baseOffset, int partitionLeaderEpoch) {
        buf.putLong(pos + BASE_OFFSET_OFFSET, baseOffset);
        buf.putInt(pos + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
    }

    /**
     * A topic with message.timestamp.type=LogAppendTime: sets the batch's timestamp type and max timestamp
     * to the broker's append time and recomputes the CRC, as Apache does (the records' own timestamps and
     * everything else stay as the client sent them). The one rewrite of CRC-covered bytes.
     */
    public static void stampLogAppendTime(ByteBuffer buf, int pos, int sizeInBytes, long appendTimeMs) {
        buf.putShort(pos + ATTRIBUTES_OFFSET, (short) (buf.getShort(pos + ATTRIBUTES_OFFSET) | TIMESTAMP_TYPE_MASK));
        buf.putLong(pos + MAX_TIMESTAMP_OFFSET, appendTimeMs);
        buf.putInt(pos + CRC_OFFSET, computeCrc(buf, pos, sizeInBytes));
    }
}
