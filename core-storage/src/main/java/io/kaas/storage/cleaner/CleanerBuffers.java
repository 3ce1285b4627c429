package io.kaas.storage.cleaner;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.HeaderCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * The buffers of one cleaner: a read and a write buffer of log.cleaner.io.buffer.size each, allocated on the
 * first pass that runs (a cleaner thread asks every compacted partition whether it is due) and doubled for a
 * batch larger than they are; kafka-clients' decompression buffers; and the stop check made before every
 * read, so a stopped cleaner abandons its pass between reads.
 *
 * <p>Not thread-safe: owned by one {@link LogCleaner}, used by its one thread.
 */
final class CleanerBuffers {
    private final int initialBytes;
    private final BooleanSupplier stopped;
    private final BufferSupplier decompression = BufferSupplier.create();
    private ByteBuffer readBuffer;
    private ByteBuffer writeBuffer;

    CleanerBuffers(int initialBytes, BooleanSupplier stopped) {
        this.initialBytes = initialBytes;
        this.stopped = stopped;
    }

    /** Allocates the buffers if no pass has yet. */
    void allocate() {
        if (readBuffer == null) {
            readBuffer = ByteBuffer.allocate(initialBytes);
            writeBuffer = ByteBuffer.allocate(initialBytes);
        }
    }

    BufferSupplier decompression() {
        return decompression;
    }

    /**
     * Reads from {@code position} into the read buffer, as much as fits, and returns it flipped.
     *
     * @throws StorageException CLOSED when the cleaner was stopped
     */
    ByteBuffer fill(FileChannel ch, long position) throws IOException {
        if (stopped.getAsBoolean()) {
            throw new StorageException(StorageException.Kind.CLOSED, "cleaning stopped");
        }
        readBuffer.clear();
        long p = position;
        while (readBuffer.hasRemaining()) {
            int n = ch.read(readBuffer, p);
            if (n < 0) {
                break;
            }
            p += n;
        }
        readBuffer.flip();
        return readBuffer;
    }

    /** The write buffer, cleared, for one filter of the read buffer's batches. */
    ByteBuffer clearedWriteBuffer() {
        writeBuffer.clear();
        return writeBuffer;
    }

    /** The filter had to grow its output past the write buffer: keep a buffer that large for the next one. */
    void keepOutputSize(ByteBuffer output) {
        if (output.capacity() > writeBuffer.capacity()) {
            writeBuffer = ByteBuffer.allocate(output.capacity());
        }
    }

    /** The batch at {@code position} is larger than the buffers: double them (up to its size), or fail on a bad length. */
    void growFor(FileChannel ch, Path log, long position) throws IOException {
        HeaderCursor cursor = new HeaderCursor(ch, position, ch.size());
        if (cursor.next() != HeaderCursor.Framing.BATCH) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    log + ":" + position + ": no whole batch here (" + cursor.framing()
                            + ") — run `kaas verify` / `kaas recover` on the partition");
        }
        int needed = (int) Math.min(cursor.sizeInBytes(), CleanerOptions.MAX_IO_BUFFER_BYTES);
        int size = readBuffer.capacity();
        while (size < needed) {
            size = (int) Math.min((long) size * 2, CleanerOptions.MAX_IO_BUFFER_BYTES);
        }
        readBuffer = ByteBuffer.allocate(size);
        writeBuffer = ByteBuffer.allocate(Math.max(size, writeBuffer.capacity()));
    }
}
