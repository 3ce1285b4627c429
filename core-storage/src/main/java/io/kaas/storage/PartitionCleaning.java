package io.kaas.storage;

import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.cleaner.CleanerOptions;
import io.kaas.storage.cleaner.LogCleaner;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Online compaction of one partition: whether a pass is due (Apache's trigger), where the last pass
 * stopped, and one pass at a time. The pass itself is {@link LogCleaner}'s and runs on the calling
 * cleaner thread, reading and writing outside the partition's lock; the partition hands it a consistent
 * starting point ({@link CleanedGroupSwap#cleaningInput}) and swaps each cleaned group in under its lock
 * ({@link CleanedGroupSwap#swap}).
 */
final class PartitionCleaning {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionCleaning.class);

    private final CleanedGroupSwap swap;
    private final BooleanSupplier closed;
    private final TopicPartition id;
    private final int indexIntervalBytes;
    private final EngineObserver observer;
    /** A cleaner thread is working on this partition: at most one at a time. */
    private final AtomicBoolean running = new AtomicBoolean();
    /** Where the last pass stopped (cleaner-checkpoint.json at open); written only by the running pass. */
    private volatile long firstDirtyOffset;

    PartitionCleaning(
            CleanedGroupSwap swap,
            BooleanSupplier closed,
            TopicPartition id,
            Path dir,
            int indexIntervalBytes,
            EngineObserver observer) {
        this.swap = swap;
        this.closed = closed;
        this.id = id;
        this.indexIntervalBytes = indexIntervalBytes;
        this.observer = observer;
        this.firstDirtyOffset = checkpoint(dir);
    }

    private static long checkpoint(Path dir) {
        try {
            return LogCleaner.readCheckpoint(dir);
        } catch (StorageException e) {
            return -1; // a hint only: the whole log is dirty again
        }
    }

    /**
     * One cleaning pass, when the topic is compacted and the partition is due: the dirty share of its
     * cleanable log reached min.cleanable.dirty.ratio, or its oldest dirty segment holds nothing newer
     * than max.compaction.lag.ms ago.
     *
     * @return the pass's report; empty when not compacted, not due, closed, failed, or another thread is at it
     */
    Optional<CleanReport> cleanIfDue(CleanerSettings settings, long nowMs, BooleanSupplier stopped) {
        if (!running.compareAndSet(false, true)) {
            return Optional.empty();
        }
        try {
            Optional<CleanedGroupSwap.CleaningInput> input = swap.cleaningInput(firstDirtyOffset);
            if (input.isEmpty()) {
                return Optional.empty();
            }
            TopicConfig topic = input.get().topic();
            CleanerOptions o = CleanerOptions.forTopic(
                    topic, nowMs, settings.dedupeBufferBytesPerThread(), null, new IndexPolicy(indexIntervalBytes));
            CleanerOptions options = new CleanerOptions(
                    o.nowMs(),
                    o.deleteRetentionMs(),
                    o.minCompactionLagMs(),
                    o.segmentBytes(),
                    o.dedupeBufferBytes(),
                    settings.ioBufferBytes(),
                    o.indexPolicy());
            LogCleaner cleaner = new LogCleaner(
                    options, swap::swap, () -> stopped.getAsBoolean() || closed.getAsBoolean(), observer);
            LogCleaner.Bounds bounds = cleaner.bounds(input.get().log());
            if (!bounds.anythingDirty() || !due(bounds, input.get().segments(), topic, nowMs)) {
                return Optional.empty();
            }
            long start = System.nanoTime();
            CleanReport report = cleaner.clean(input.get().log(), false, b -> {});
            if (report.endOffset() >= 0) {
                firstDirtyOffset = report.endOffset();
            }
            observer.cleaned(id, report, System.nanoTime() - start);
            return Optional.of(report);
        } catch (IOException | StorageException e) {
            if (!closed.getAsBoolean() && !stopped.getAsBoolean()) {
                LOG.warn(
                        "{}: cleaning pass failed (the log is as it was before the failed group): {}",
                        id,
                        e.getMessage());
            }
            return Optional.empty();
        } finally {
            running.set(false);
        }
    }

    /** Apache's trigger: dirty ratio, or a dirty segment past max.compaction.lag.ms. */
    private static boolean due(LogCleaner.Bounds bounds, List<Segment> segments, TopicConfig topic, long nowMs)
            throws IOException {
        long clean = 0;
        long dirty = 0;
        Segment firstDirty = null;
        for (int i = 0; i < bounds.cleanableSegments(); i++) {
            Segment s = segments.get(i);
            if (segments.get(i + 1).baseOffset() <= bounds.firstDirtyOffset()) {
                clean += s.size();
            } else {
                dirty += s.size();
                firstDirty = firstDirty == null ? s : firstDirty;
            }
        }
        if (clean + dirty > 0 && (double) dirty / (clean + dirty) >= topic.minCleanableDirtyRatio()) {
            return true;
        }
        long maxLag = topic.maxCompactionLagMs();
        if (firstDirty == null || maxLag == Long.MAX_VALUE) {
            return false;
        }
        long newest = firstDirty.maxTimestamp() >= 0 ? firstDirty.maxTimestamp() : firstDirty.lastModifiedMs();
        return nowMs - newest > maxLag;
    }
}
