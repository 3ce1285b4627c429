package io.kaas.storage;

/**
 * Outcome of one append (one Produce partition entry). {@code duplicate} is true when idempotence
 * recognised a retry: nothing was written and {@code baseOffset} is the original's.
 * {@code logAppendTimeMs} is the time stamped into the batches of a LogAppendTime topic, else -1.
 */
public record AppendResult(
        long baseOffset, long lastOffset, long logStartOffset, boolean duplicate, long logAppendTimeMs) {
    public AppendResult(long baseOffset, long lastOffset, long logStartOffset, boolean duplicate) {
        this(baseOffset, lastOffset, logStartOffset, duplicate, -1);
    }
}
