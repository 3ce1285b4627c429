package io.kaas.storage.segment;

import io.kaas.storage.format.BatchValidator;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * After a {@link BatchScanner} stopped at a batch whose length cannot be trusted, searches forward
 * byte by byte for the next batch that is CRC-valid and continues the log: the evidence that the
 * bad bytes are damage in the middle of written data rather than a torn tail. A candidate must look
 * like a header first (magic 2, a length that frames a whole batch inside the range, a base offset
 * in {@code [minBaseOffset, maxLastOffset]}); only then is its CRC-32C computed, so the search reads
 * each byte once and computes few CRCs. Runs only after a stop, never on a clean scan.
 */
public final class ResyncScan {
    private static final int CHUNK = 1 << 20;

    private ResyncScan() {}

    /** A batch the search found, and the bytes it read to find it. */
    public record Found(long position, RecordBatchHeader header) {}

    /**
     * The first position in {@code [from, end)} of {@code channel} holding a CRC-valid batch whose
     * base offset is at least {@code minBaseOffset} and whose last offset is at most {@code maxLastOffset};
     * null when there is none.
     */
    public static Found find(FileChannel channel, long from, long end, long minBaseOffset, long maxLastOffset)
            throws IOException {
        return search(channel, from, end - RecordBatchHeader.HEADER_SIZE, end, minBaseOffset, maxLastOffset, -1);
    }

    /**
     * The first position in {@code [from, lastStart]} holding a CRC-valid batch (framed inside {@code end})
     * that ends past {@code endsAfter} and whose base offset is at least {@code minBaseOffset}, however far
     * past it: any batch of the log's bytes whose offsets are past what the log holds before a stop,
     * including one that starts inside the last batch before it or whose base offset (outside the CRC) no
     * longer fits the segment. A torn write leaves a prefix of what was written, zeros or stale garbage:
     * never such a batch, so it is evidence of damage even where no batch continues the log. Null when none.
     */
    public static Found findPastTheLog(
            FileChannel channel, long from, long lastStart, long end, long minBaseOffset, long endsAfter)
            throws IOException {
        return search(channel, from, lastStart, end, minBaseOffset, Long.MAX_VALUE, endsAfter);
    }

    private static Found search(
            FileChannel channel,
            long from,
            long lastStart,
            long end,
            long minBaseOffset,
            long maxLastOffset,
            long endsAfter)
            throws IOException {
        ByteBuffer chunk =
                ByteBuffer.allocate((int) Math.max(RecordBatchHeader.HEADER_SIZE, Math.min(CHUNK, end - from)));
        long chunkStart = from;
        while (chunkStart + RecordBatchHeader.HEADER_SIZE <= end && chunkStart <= lastStart) {
            int n = read(channel, chunk, chunkStart, (int) Math.min(chunk.capacity(), end - chunkStart));
            int lastCandidate = (int) Math.min(n - RecordBatchHeader.HEADER_SIZE, lastStart - chunkStart);
            for (int i = 0; i <= lastCandidate; i++) {
                if (chunk.get(i + RecordBatchHeader.MAGIC_OFFSET) != RecordBatchHeader.MAGIC_V2) {
                    continue;
                }
                long at = chunkStart + i;
                int length = chunk.getInt(i + RecordBatchHeader.LENGTH_OFFSET);
                long base = chunk.getLong(i + RecordBatchHeader.BASE_OFFSET_OFFSET);
                if (!HeaderCursor.framesWholeBatch(length, end - at)
                        || base < minBaseOffset
                        || base > maxLastOffset
                        || at + length + RecordBatchHeader.LOG_OVERHEAD <= endsAfter) {
                    continue;
                }
                RecordBatchHeader header = validAt(channel, at, length + RecordBatchHeader.LOG_OVERHEAD);
                // past the log, a last offset that overflows is a damaged base offset too
                boolean fits = maxLastOffset == Long.MAX_VALUE
                        || (header != null
                                && header.lastOffset() <= maxLastOffset
                                && header.lastOffset() >= header.baseOffset());
                if (header != null && fits) {
                    return new Found(at, header);
                }
            }
            if (chunkStart + n >= end) {
                break;
            }
            // The next chunk starts at the first position this one could not test as a whole header.
            chunkStart += n - RecordBatchHeader.HEADER_SIZE + 1;
        }
        return null;
    }

    private static RecordBatchHeader validAt(FileChannel channel, long at, int size) throws IOException {
        ByteBuffer batch = ByteBuffer.allocate(size);
        if (read(channel, batch, at, size) < size) {
            return null;
        }
        try {
            return BatchValidator.validateStored(batch, 0, size, at);
        } catch (CorruptBatchException e) {
            return null;
        }
    }

    private static int read(FileChannel channel, ByteBuffer buf, long at, int n) throws IOException {
        buf.clear();
        buf.limit(n);
        long pos = at;
        while (buf.hasRemaining()) {
            int r = channel.read(buf, pos);
            if (r < 0) {
                break;
            }
            pos += r;
        }
        int got = buf.position();
        buf.flip();
        return got;
    }
}
