package io.kaas.broker.fetch;

import io.kaas.storage.ReadLimit;
import java.util.Optional;

/**
 * The byte limits of one fetch response, as KIP-74 defines them for Fetch (and Apache applies to ShareFetch):
 * the response's {@code max_bytes} bounds the records of all its partitions together and each partition's
 * {@code partition_max_bytes} bounds that partition, both counted in whole batches, and only the first batch
 * of the first partition that returns any may exceed them, so that a consumer can always make progress
 * past a batch larger than its limits. Nothing else in a response is ever over either limit.
 *
 * <p>Ask {@link #next} before reading a partition, in response order, and report what the read returned
 * with {@link #took}. One per response attempt, used by one thread.
 */
public final class FetchBudget {
    private final long responseMaxBytes;
    private long taken;
    private boolean anyTaken;

    /** @param responseMaxBytes the response's limit; zero or less means none */
    public FetchBudget(long responseMaxBytes) {
        this.responseMaxBytes = responseMaxBytes <= 0 ? Long.MAX_VALUE : responseMaxBytes;
    }

    /**
     * What the next partition may return, or empty when the response is full and the partition is not to be
     * read at all.
     *
     * @param partitionMaxBytes the partition's limit; zero or less allows only an oversize first batch
     */
    public Optional<ReadLimit> next(int partitionMaxBytes) {
        long within = Math.max(0, Math.min(partitionMaxBytes, responseMaxBytes - taken));
        if (!anyTaken) {
            return Optional.of(ReadLimit.atLeastOneBatch((int) within));
        }
        return within > 0 ? Optional.of(ReadLimit.strictly((int) within)) : Optional.empty();
    }

    /** Counts {@code bytes} of batches a partition returned (zero for none). */
    public void took(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes " + bytes + " < 0");
        }
        if (bytes > 0) {
            taken += bytes;
            anyTaken = true;
        }
    }

    /** Bytes of batches taken so far. */
    public long taken() {
        return taken;
    }
}
