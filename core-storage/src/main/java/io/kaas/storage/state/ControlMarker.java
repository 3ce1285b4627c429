package io.kaas.storage.state;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;

/**
 * Reads the type of a transaction marker from a control batch: the key (version i16, type i16) of
 * its single record. Control batches are written by the coordinator, uncompressed; this walks the
 * record's varint prefix only, never a client's records.
 */
public final class ControlMarker {
    public static final short ABORT = 0;
    public static final short COMMIT = 1;

    private ControlMarker() {}

    /** Marker type of the control batch at {@code pos}, or -1 when it cannot be read. */
    public static short type(ByteBuffer batch, int pos) {
        try {
            ByteBuffer b = atKey(batch, pos);
            int keyLength = readVarint(b);
            if (keyLength < 4) {
                return -1;
            }
            b.getShort(); // key version
            return b.getShort();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * The coordinator epoch of the marker in the control batch at {@code pos} (its value: version i16, coordinator
     * epoch i32, as kafka-clients' {@code EndTransactionMarker}), or -1 when it cannot be read.
     */
    public static int coordinatorEpoch(ByteBuffer batch, int pos) {
        try {
            ByteBuffer b = atKey(batch, pos);
            int keyLength = readVarint(b);
            if (keyLength < 0) {
                return -1;
            }
            b.position(b.position() + keyLength);
            int valueLength = readVarint(b);
            if (valueLength < 6) {
                return -1;
            }
            b.getShort(); // value version
            return b.getInt();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** A view of the batch at {@code pos} positioned at its single record's key length. */
    private static ByteBuffer atKey(ByteBuffer batch, int pos) {
        ByteBuffer b = batch.duplicate();
        b.position(pos + RecordBatchHeader.RECORDS_OFFSET);
        readVarint(b); // record length
        b.get(); // attributes
        readVarlong(b); // timestamp delta
        readVarint(b); // offset delta
        return b;
    }

    private static int readVarint(ByteBuffer b) {
        return (int) readVarlong(b);
    }

    private static long readVarlong(ByteBuffer b) {
        long raw = 0;
        int shift = 0;
        byte x;
        do {
            x = b.get();
            raw |= (long) (x & 0x7f) << shift;
            shift += 7;
            if (shift > 63) {
                throw new IllegalArgumentException("varint too long");
            }
        } while ((x & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }
}
