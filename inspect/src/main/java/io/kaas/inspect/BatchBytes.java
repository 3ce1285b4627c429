package io.kaas.inspect;

import io.kaas.storage.format.RecordBatchHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads one whole batch at a byte position without judging it: for batches the scanner stopped at
 * whose framing is intact (bad CRC, offsets going backwards), so the dump can still show them.
 */
final class BatchBytes {
    private BatchBytes() {}

    /** The batch's bytes, or null when fewer than a header's worth or fewer than its length remain. */
    static ByteBuffer readAt(FileChannel ch, long position, long end) throws IOException {
        if (end - position < RecordBatchHeader.HEADER_SIZE) {
            return null;
        }
        ByteBuffer head = readFully(ch, position, RecordBatchHeader.HEADER_SIZE);
        int length = head.getInt(RecordBatchHeader.LENGTH_OFFSET);
        long size = (long) length + RecordBatchHeader.LOG_OVERHEAD;
        if (size < RecordBatchHeader.HEADER_SIZE || size > end - position || size > Integer.MAX_VALUE) {
            return null;
        }
        return readFully(ch, position, (int) size);
    }

    static ByteBuffer readFully(FileChannel ch, long position, int n) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(n);
        long at = position;
        while (buf.hasRemaining()) {
            int r = ch.read(buf, at);
            if (r < 0) {
                break;
            }
            at += r;
        }
        return buf.flip();
    }
}
