package io.kaas.storage.testfs;

/** What a write that would cross the remaining free space does. */
public enum DiskFullMode {
    /** Nothing is written and the write throws: the file is unchanged. */
    FAIL_WHOLE_WRITE,
    /**
     * The bytes that still fit are written, then the write throws. The caller cannot tell how much
     * landed: this is the shape that leaves a torn batch in a log.
     */
    WRITE_PREFIX_THEN_THROW,
    /**
     * Like Linux {@code write(2)}: the bytes that fit are written and their count returned; the next
     * write throws. Callers that loop until the buffer is drained see the error on their next call.
     */
    SHORT_WRITE
}
