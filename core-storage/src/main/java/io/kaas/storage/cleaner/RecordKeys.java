package io.kaas.storage.cleaner;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.security.DigestException;
import org.apache.kafka.common.utils.internals.ByteUtils;

/**
 * The map pass's reading of an uncompressed v2 batch: each record's key and offset, read in place from
 * the batch's bytes, with no record object and no copy; the value and headers are stepped over by the
 * record's length field. The map needs nothing else, and the copy pass decodes every record whole
 * through kafka-clients. Kafka's record layout (KIP-98): length, attributes, timestamp delta, offset
 * delta, key length and key, then value and headers; all lengths varints.
 */
final class RecordKeys {
    /** Where a v2 batch's records start: the size of its header. */
    static final int RECORDS_OFFSET = 61;

    /** Takes a record's key (valid until it returns) and offset; false stops the walk. */
    @FunctionalInterface
    interface KeySink {
        boolean accept(ByteBuffer key, long offset) throws DigestException;
    }

    private final ByteBuffer in;
    private final ByteBuffer key;

    /** Reads batches lying in {@code buffer} (not changed: the walk uses views of it). */
    RecordKeys(ByteBuffer buffer) {
        this.in = buffer.duplicate();
        this.key = buffer.duplicate();
    }

    /**
     * Walks the {@code count} records of the uncompressed batch at {@code [start, start + size)} of the buffer
     * in offset order, giving the sink each record with a key (null keys are skipped).
     *
     * @return false when the sink stopped the walk
     * @throws IllegalArgumentException when the records do not frame the batch exactly (a length or varint out of bounds)
     */
    boolean forEach(int start, int size, long baseOffset, int count, KeySink sink) throws DigestException {
        int end = start + size;
        int position = start + RECORDS_OFFSET;
        try {
            for (int i = 0; i < count; i++) {
                in.limit(end).position(position);
                int length = ByteUtils.readVarint(in);
                int body = in.position();
                if (length < 0 || length > end - body) {
                    throw new IllegalArgumentException(
                            "record " + i + " of " + count + " has length " + length + ", past the batch's end");
                }
                in.limit(body + length);
                in.get(); // attributes: unused
                ByteUtils.readVarlong(in); // timestamp delta
                long offset = baseOffset + ByteUtils.readVarint(in);
                int keyLength = ByteUtils.readVarint(in);
                if (keyLength > in.remaining()) {
                    throw new IllegalArgumentException(
                            "record " + i + " has a key of " + keyLength + " bytes, past its end");
                }
                if (keyLength >= 0) {
                    key.limit(in.position() + keyLength).position(in.position());
                    if (!sink.accept(key, offset)) {
                        return false;
                    }
                }
                position = body + length;
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a record's fields run past its length", e);
        }
        if (position != end) {
            throw new IllegalArgumentException(
                    (end - position) + " bytes left after the batch's " + count + " records");
        }
        return true;
    }
}
