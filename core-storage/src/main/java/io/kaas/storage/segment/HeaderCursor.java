package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.LongConsumer;

/**
 * Steps batch to batch over {@code [start, end)} of a log file reading only each batch's
 * {@link RecordBatchHeader#HEADER_SIZE}-byte header: the walk behind Fetch ({@link Segment#positionOf},
 * {@link Segment#wholeBatchesEnd}), timestamp lookups, and recovery's count of what {@code --force}
 * would discard. It judges framing only (length, magic, whole batch inside the range), never the CRC;
 * {@link BatchScanner} is the walk that also checks CRC-32C and offsets, and shares
 * {@link #framesWholeBatch} with this one.
 *
 * <p>One header buffer per cursor and no object per batch: the fields of the current batch are read
 * from that buffer. Not thread-safe.
 */
public final class HeaderCursor {
    /** What {@link #next} found at {@link #position()}. */
    public enum Framing {
        /** A whole v2 batch: its fields are readable. */
        BATCH,
        /** The range ends exactly here, on a batch boundary: a clean end. */
        END,
        /** Fewer than a header's bytes remain (a torn header). */
        SHORT_HEADER,
        /** The length field is below the v2 minimum or negative (a zero-filled tail lands here too). */
        BAD_LENGTH,
        /** The length field says the batch runs past the end of the range (a torn, short batch). */
        PAST_END,
        /**
         * The length frames a whole batch inside the range but the magic byte is not 2: the walk can
         * step over it ({@link #stepOver}), the bytes are not a batch kaas can read.
         */
        BAD_MAGIC
    }

    private final FileChannel channel;
    private final long end;
    private final ByteBuffer head = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
    private long position;
    /** Where the batch last found at {@link #position} ends; -1 when the framing there did not hold. */
    private long nextPosition;

    private Framing framing;

    public HeaderCursor(FileChannel channel, long start, long end) {
        this.channel = channel;
        this.end = end;
        this.position = start;
        this.nextPosition = start;
    }

    /**
     * The one rule for "the walk can go on past this batch": its length field frames at least a
     * header's worth of bytes that end inside the range ({@code remaining} bytes from its start), and
     * its size fits an int, as Kafka's does.
     * A bad CRC, bad offsets or a bad magic byte inside such a batch are damage to that batch only;
     * a length that does not hold means nothing after it can be located.
     */
    public static boolean framesWholeBatch(int batchLength, long remaining) {
        long size = (long) batchLength + RecordBatchHeader.LOG_OVERHEAD;
        return size >= RecordBatchHeader.HEADER_SIZE && size <= remaining && size <= Integer.MAX_VALUE;
    }

    /**
     * Moves past the current batch (if {@link #next} last returned {@link Framing#BATCH}) and reads the
     * header there. Once the framing has stopped, further calls return the same outcome.
     */
    public Framing next() throws IOException {
        if (framing != null && framing != Framing.BATCH) {
            return framing;
        }
        position = nextPosition;
        return read();
    }

    /** After {@link Framing#BAD_MAGIC}: treat the batch as stepped over; the next {@link #next} reads after it. */
    public void stepOver() {
        if (framing != Framing.BAD_MAGIC) {
            throw new IllegalStateException("framing at " + position + " is " + framing + ": nothing to step over");
        }
        framing = Framing.BATCH;
    }

    private Framing read() throws IOException {
        nextPosition = -1;
        long remaining = end - position;
        if (remaining == 0) {
            return framing = Framing.END;
        }
        if (remaining < RecordBatchHeader.HEADER_SIZE) {
            return framing = Framing.SHORT_HEADER;
        }
        head.clear();
        long at = position;
        while (head.hasRemaining()) {
            int r = channel.read(head, at);
            if (r < 0) {
                // the file is shorter than the range said: what is missing is a torn header
                return framing = Framing.SHORT_HEADER;
            }
            at += r;
        }
        int length = batchLength();
        if ((long) length + RecordBatchHeader.LOG_OVERHEAD < RecordBatchHeader.HEADER_SIZE) {
            return framing = Framing.BAD_LENGTH;
        }
        if (!framesWholeBatch(length, remaining)) {
            return framing = Framing.PAST_END;
        }
        nextPosition = position + sizeInBytes();
        return framing = magic() == RecordBatchHeader.MAGIC_V2 ? Framing.BATCH : Framing.BAD_MAGIC;
    }

    /** Start of the current batch; after a stop, where the framing stopped. */
    public long position() {
        return position;
    }

    /** End of the range. */
    public long end() {
        return end;
    }

    /** The last outcome of {@link #next}, null before the first call. */
    public Framing framing() {
        return framing;
    }

    public long baseOffset() {
        return head.getLong(RecordBatchHeader.BASE_OFFSET_OFFSET);
    }

    public int batchLength() {
        return head.getInt(RecordBatchHeader.LENGTH_OFFSET);
    }

    public byte magic() {
        return head.get(RecordBatchHeader.MAGIC_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + head.getInt(RecordBatchHeader.LAST_OFFSET_DELTA_OFFSET);
    }

    public long nextOffset() {
        return lastOffset() + 1;
    }

    public long maxTimestamp() {
        return head.getLong(RecordBatchHeader.MAX_TIMESTAMP_OFFSET);
    }

    public int recordCount() {
        return head.getInt(RecordBatchHeader.RECORDS_COUNT_OFFSET);
    }

    /** Bytes of the current batch, header included. */
    public long sizeInBytes() {
        return (long) batchLength() + RecordBatchHeader.LOG_OVERHEAD;
    }

    /** The current header as a record (one allocation; the field getters above make none). */
    public RecordBatchHeader header() {
        return RecordBatchHeader.peek(head, 0);
    }

    /** After a stop: true when every byte from there to the end of the range is zero. */
    public boolean tailIsZeros() throws IOException {
        return framing != null
                && framing != Framing.BATCH
                && framing != Framing.END
                && zerosFrom(channel, position, end, n -> {});
    }

    /**
     * True when every byte from {@code from} to {@code end} of {@code channel} is zero: a torn tail
     * of preallocated or zero-filled pages rather than garbage. Reports each read's byte count to
     * {@code bytesRead}, so scans can account for what they read.
     */
    public static boolean zerosFrom(FileChannel channel, long from, long end, LongConsumer bytesRead)
            throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(64 * 1024, Math.max(1, end - from)));
        long at = from;
        while (at < end) {
            chunk.clear();
            chunk.limit((int) Math.min(chunk.capacity(), end - at));
            int r = channel.read(chunk, at);
            if (r <= 0) {
                break;
            }
            bytesRead.accept(r);
            for (int i = 0; i < r; i++) {
                if (chunk.get(i) != 0) {
                    return false;
                }
            }
            at += r;
        }
        return true;
    }
}
