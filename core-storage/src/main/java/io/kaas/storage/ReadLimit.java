package io.kaas.storage;

/**
 * How many bytes of whole batches a read may return. A read never splits a batch: it returns the batches that
 * fit in {@code maxBytes}, and when the first batch alone is larger, that batch if {@code firstBatchMayExceed}
 * (so that a reader can always make progress), nothing otherwise.
 */
public record ReadLimit(int maxBytes, boolean firstBatchMayExceed) {
    public ReadLimit {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " < 0");
        }
    }

    /** Up to {@code maxBytes}, or the first batch if it alone is larger. */
    public static ReadLimit atLeastOneBatch(int maxBytes) {
        return new ReadLimit(Math.max(maxBytes, 0), true);
    }

    /** Up to {@code maxBytes}, never more. */
    public static ReadLimit strictly(int maxBytes) {
        return new ReadLimit(maxBytes, false);
    }
}
