package io.kaas.storage;

import io.kaas.storage.cleaner.CleanerOptions;
import java.time.Duration;

/**
 * The engine's log cleaner, Apache's broker configs and defaults.
 *
 * @param threads           log.cleaner.threads: threads named {@code kaas-log-cleaner-N}; 0 = no cleaning
 *                          (log.cleaner.enable=false)
 * @param dedupeBufferBytes log.cleaner.dedupe.buffer.size, shared by the threads (each maps keys in its share)
 * @param ioBufferBytes     log.cleaner.io.buffer.size: each thread's read and write buffers (grown for a larger batch)
 * @param backoff           log.cleaner.backoff.ms: how long a thread sleeps when no partition is due
 */
public record CleanerSettings(int threads, long dedupeBufferBytes, int ioBufferBytes, Duration backoff) {
    public static final CleanerSettings DEFAULTS = new CleanerSettings(
            1,
            CleanerOptions.DEFAULT_DEDUPE_BUFFER_BYTES,
            CleanerOptions.DEFAULT_IO_BUFFER_BYTES,
            Duration.ofSeconds(15));
    public static final CleanerSettings OFF = new CleanerSettings(
            0,
            CleanerOptions.DEFAULT_DEDUPE_BUFFER_BYTES,
            CleanerOptions.DEFAULT_IO_BUFFER_BYTES,
            Duration.ofSeconds(15));

    public CleanerSettings {
        if (threads < 0) {
            throw new IllegalArgumentException("log cleaner threads must not be negative, got " + threads);
        }
        if (threads > 0 && dedupeBufferBytes / threads < 24 * 16) {
            throw new IllegalArgumentException("log cleaner dedupe buffer of " + dedupeBufferBytes
                    + " bytes is too small for " + threads + " thread(s)");
        }
        if (ioBufferBytes < 1024) {
            throw new IllegalArgumentException(
                    "log cleaner io buffer must be at least 1024 bytes, got " + ioBufferBytes);
        }
        if (backoff.isNegative() || backoff.isZero()) {
            throw new IllegalArgumentException("log cleaner backoff must be positive, got " + backoff);
        }
    }

    /** Each thread's share of the dedupe buffer (Apache divides it the same way). */
    public long dedupeBufferBytesPerThread() {
        return threads == 0 ? dedupeBufferBytes : dedupeBufferBytes / threads;
    }
}
