package io.kaas.storage;

import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryReport;

/**
 * What the engine tells whoever watches it (the broker's metrics and logs), without the engine knowing
 * who that is: core-storage stays free of any metrics library. Every method has a no-op default.
 *
 * <p>Callbacks run on the engine's own threads (a committer right after an fsync, the thread opening a
 * partition): they must be cheap and must never block or throw. As a {@link CodecTripwire} it hears every
 * engine site that decodes records or rewrites a batch ({@link CodecSite}): LogAppendTime and the cleaner.
 */
public interface EngineObserver extends CodecTripwire {
    /** Watches nothing. */
    EngineObserver NONE = new EngineObserver() {};

    /**
     * An fsync of {@code partition}'s active segment succeeded.
     *
     * @param durationNanos  how long the fsync call took
     * @param appendsCovered flush requests it completed (appends, at flush interval 1); 0 for an fsync
     *                       that only re-covered what an earlier one had (an explicit flush, say)
     */
    default void fsynced(TopicPartition partition, long durationNanos, long appendsCovered) {}

    /** {@code partition} was opened: what its recovery scan found and did, and how long the open took. */
    default void partitionOpened(TopicPartition partition, RecoveryReport report, long durationNanos) {}

    /** {@code partition} could not be opened (damage, I/O error); nothing of it is served. */
    default void partitionOpenFailed(TopicPartition partition, StorageException failure) {}

    /**
     * {@code partition}'s fsync or write failed, or its fsync stalled ({@link StorageException.Kind#STALLED}):
     * it refuses appends until it is reopened. Called once per partition.
     */
    default void partitionFailed(TopicPartition partition, StorageException failure) {}

    /** A cleaning pass of a compacted partition ended (swapped in what it cleaned); {@code report} says what it removed. */
    default void cleaned(TopicPartition partition, io.kaas.storage.cleaner.CleanReport report, long durationNanos) {}

    @Override
    default void tripped(CodecSite site, long count) {}
}
