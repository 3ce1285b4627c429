package io.kaas.storage.segment;

import io.kaas.storage.format.BatchValidator;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Walks a log file batch by batch from a byte position, checking framing, CRC-32C and that offsets
 * increase, and stops at the first batch that fails. The one reader behind recovery, verify, dump and
 * rebuild-index, so they agree on where a log's valid part ends. Whether a walk may go on past the
 * batch it stopped at is {@link #canStepOver()}: the same rule ({@link HeaderCursor#framesWholeBatch})
 * for recovery's damage verdict, verify and dump.
 *
 * <p>Reads through one buffer (grown to the largest batch seen); never maps the file. Not thread-safe.
 */
public final class BatchScanner {
    private static final int DEFAULT_BUFFER = 1 << 20;

    private final FileChannel channel;
    private final Path file;
    private final long end;
    private ByteBuffer buf;
    private long bufStart;
    private long position;
    private long minNextOffset;
    private long maxLastOffset = Long.MAX_VALUE;
    private long bytesRead;
    private CorruptBatchException stop;
    private boolean done;

    /** @param minBaseOffset the first batch's base offset must be at least this (the segment's base offset) */
    public BatchScanner(FileChannel channel, Path file, long start, long end, long minBaseOffset) {
        this.channel = channel;
        this.file = file;
        this.end = end;
        this.position = start;
        this.minNextOffset = minBaseOffset;
        this.buf = ByteBuffer.allocate(
                (int) Math.max(RecordBatchHeader.HEADER_SIZE, Math.min(DEFAULT_BUFFER, end - start)));
        this.buf.limit(0);
        this.bufStart = start;
    }

    /**
     * Batches whose last offset is above {@code maxLastOffset} are invalid. A segment's index holds
     * offsets relative to its base as 32-bit ints; baseOffset is outside the CRC, so a flipped bit there
     * would otherwise pass as a valid batch far in the future. Returns this.
     */
    public BatchScanner limitOffsets(long maxLastOffset) {
        this.maxLastOffset = maxLastOffset;
        return this;
    }

    public static BatchScanner ofWholeFile(FileChannel channel, Path file, long minBaseOffset) throws IOException {
        return new BatchScanner(channel, file, 0, channel.size(), minBaseOffset);
    }

    /** The next valid batch, or null at the end of the range or at the first invalid batch (see {@link #stopReason()}). */
    public ScannedBatch next() throws IOException {
        if (done) {
            return null;
        }
        long remaining = end - position;
        if (remaining == 0) {
            done = true;
            return null;
        }
        if (!fill(position, (int) Math.min(remaining, RecordBatchHeader.HEADER_SIZE))) {
            return stopAt(new CorruptBatchException(CorruptBatchException.Reason.TRUNCATED, position, "unreadable"));
        }
        int rel = (int) (position - bufStart);
        if (remaining < RecordBatchHeader.HEADER_SIZE) {
            return stopAt(new CorruptBatchException(
                    CorruptBatchException.Reason.TRUNCATED,
                    position,
                    "batch header truncated: " + remaining + " of " + RecordBatchHeader.HEADER_SIZE + " bytes"));
        }
        int batchLength = buf.getInt(rel + RecordBatchHeader.LENGTH_OFFSET);
        long size = (long) batchLength + RecordBatchHeader.LOG_OVERHEAD;
        int needed = (int)
                Math.min(Math.max(size, RecordBatchHeader.HEADER_SIZE), Math.min(remaining, Integer.MAX_VALUE - 16));
        if (size > RecordBatchHeader.HEADER_SIZE && size <= remaining) {
            fill(position, needed);
            rel = (int) (position - bufStart);
        }
        int limit = (int) Math.min((long) rel + Math.min(remaining, (long) buf.limit() - rel), buf.limit());
        RecordBatchHeader header;
        try {
            header = BatchValidator.validateStored(buf, rel, limit, position);
        } catch (CorruptBatchException e) {
            return stopAt(e);
        }
        if (header.lastOffset() > maxLastOffset || header.lastOffset() < header.baseOffset()) {
            return stopAt(new CorruptBatchException(
                    CorruptBatchException.Reason.BAD_OFFSET_RANGE,
                    position,
                    "offsets " + header.baseOffset() + ".." + header.lastOffset() + " do not fit the segment (at most "
                            + maxLastOffset + ")"));
        }
        if (header.baseOffset() < minNextOffset) {
            return stopAt(new CorruptBatchException(
                    CorruptBatchException.Reason.BAD_OFFSET_RANGE,
                    position,
                    "base offset " + header.baseOffset() + " is below the expected " + minNextOffset));
        }
        ScannedBatch b = new ScannedBatch(position, header, view(rel, header.sizeInBytes()));
        position += header.sizeInBytes();
        minNextOffset = header.nextOffset();
        return b;
    }

    private ByteBuffer view(int rel, int size) {
        return buf.duplicate().position(rel).limit(rel + size).slice().asReadOnlyBuffer();
    }

    private ScannedBatch stopAt(CorruptBatchException e) {
        stop = e;
        done = true;
        return null;
    }

    /** Makes bytes [pos, pos+n) available in buf; false if the file ends first. */
    private boolean fill(long pos, int n) throws IOException {
        if (pos >= bufStart && pos + n <= bufStart + buf.limit()) {
            return true;
        }
        if (n > buf.capacity()) {
            buf = ByteBuffer.allocate(n);
        }
        buf.clear();
        int want = (int) Math.min(buf.capacity(), end - pos);
        buf.limit(Math.max(want, 0));
        long at = pos;
        while (buf.hasRemaining()) {
            int r = channel.read(buf, at);
            if (r < 0) {
                break;
            }
            at += r;
            bytesRead += r;
        }
        buf.flip();
        bufStart = pos;
        return buf.limit() >= n;
    }

    /** Byte position after the last valid batch: where a torn tail starts, or the end. */
    public long position() {
        return position;
    }

    /** Why the scan stopped before the end; null after a clean end. */
    public CorruptBatchException stopReason() {
        return stop;
    }

    /** Bytes read from the file so far (recovery asserts zero after a clean close). */
    public long bytesRead() {
        return bytesRead;
    }

    public long end() {
        return end;
    }

    public Path file() {
        return file;
    }

    /** After a stop: true if every byte from the stop position to the end is zero (a zero-filled torn tail). */
    public boolean tailIsZeros() throws IOException {
        return stop != null && HeaderCursor.zerosFrom(channel, position, end, n -> bytesRead += n);
    }

    /**
     * After a stop: true when the batch there can be walked past, its damage confined to itself (bad
     * CRC, bad offsets, bad magic), because its length frames a whole batch inside the range.
     */
    public boolean canStepOver() throws IOException {
        return stop != null
                && end - position >= RecordBatchHeader.HEADER_SIZE
                && fill(position, RecordBatchHeader.HEADER_SIZE)
                && HeaderCursor.framesWholeBatch(lengthAtStop(), end - position);
    }

    private int lengthAtStop() {
        return buf.getInt((int) (position - bufStart) + RecordBatchHeader.LENGTH_OFFSET);
    }

    /**
     * After a stop where {@link #canStepOver()}: the bad batch, unjudged (its view valid until the next
     * call), and the scan resumes after it. Its offsets are not trusted, so the batches after it are not
     * held to follow them. Null when it cannot be stepped over (or the file ends before the batch does).
     */
    public ScannedBatch stepOver() throws IOException {
        if (!canStepOver()) {
            return null;
        }
        int size = lengthAtStop() + RecordBatchHeader.LOG_OVERHEAD;
        if (!fill(position, size)) {
            return null;
        }
        int rel = (int) (position - bufStart);
        RecordBatchHeader header = RecordBatchHeader.peek(buf, rel);
        ScannedBatch bad = new ScannedBatch(position, header, view(rel, size));
        position += size;
        minNextOffset = Long.MIN_VALUE;
        stop = null;
        done = false;
        return bad;
    }

    /**
     * After a stop on a batch that can be stepped over: true if a valid batch follows it. That is
     * damage (bit rot), not a torn tail: the bytes after it were once written whole, so recovery must
     * not drop them without an operator's say-so. Leaves the scanner at the stop.
     */
    public boolean validDataFollows() throws IOException {
        if (!canStepOver()) {
            return false;
        }
        long next = position + RecordBatchHeader.LOG_OVERHEAD + lengthAtStop();
        if (next >= end) {
            return false;
        }
        BatchScanner probe = new BatchScanner(channel, file, next, end, Long.MIN_VALUE);
        boolean found = probe.next() != null;
        bytesRead += probe.bytesRead();
        return found;
    }
}
