package io.kaas.storage.format;

import io.kaas.storage.io.StorageException;

/**
 * A batch that fails framing or CRC validation. {@link #position()} is the byte position of the batch
 * in its buffer or file (-1 when unknown), so a message can say {@code path:position}.
 */
public final class CorruptBatchException extends StorageException {
    public enum Reason {
        TRUNCATED,
        BAD_LENGTH,
        BAD_MAGIC,
        BAD_CRC,
        BAD_RECORD_COUNT,
        BAD_OFFSET_RANGE
    }

    private final Reason reason;
    private final long position;

    public CorruptBatchException(Reason reason, long position, String detail) {
        super(Kind.CORRUPT_BATCH, detail);
        this.reason = reason;
        this.position = position;
    }

    public Reason reason() {
        return reason;
    }

    public long position() {
        return position;
    }
}
