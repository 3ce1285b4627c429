package io.kaas.storage;

/**
 * Outcome of one append (one Produce partition entry). {@code duplicate} is true when idempotence
 * recognised a retry: nothing was written and {@code baseOffset} is the original's.
 */
public record AppendResult(long baseOffset, long lastOffset, long logStartOffset, boolean duplicate) {}
