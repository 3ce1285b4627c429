package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** A growable byte array with file semantics: writes past the end zero-fill the gap. Not thread-safe. */
final class ByteImage {
    private byte[] data;
    private int length;

    ByteImage(byte[] initial) {
        this.data = initial;
        this.length = initial.length;
    }

    ByteImage copy() {
        return new ByteImage(toArray());
    }

    int length() {
        return length;
    }

    void write(long position, ByteBuffer bytes) throws IOException {
        int count = bytes.remaining();
        long end = position + count;
        if (end > Integer.MAX_VALUE - 8) {
            throw new IOException("FaultyFileSystem models files up to 2 GiB; write ends at byte " + end);
        }
        if (end > data.length) {
            data = Arrays.copyOf(data, (int) Math.max(end, Math.min(Integer.MAX_VALUE - 8, data.length * 2L)));
        }
        bytes.get(data, (int) position, count);
        length = Math.max(length, (int) end);
    }

    void truncate(long size) {
        if (size < length) {
            // Zero the cut-off part so a later write past the end reads back zeros in the gap.
            Arrays.fill(data, (int) size, length, (byte) 0);
            length = (int) size;
        }
    }

    byte[] toArray() {
        return Arrays.copyOf(data, length);
    }
}
