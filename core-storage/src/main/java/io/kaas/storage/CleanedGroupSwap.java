package io.kaas.storage;

import io.kaas.storage.cleaner.CleanableLog;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cleaner's two moments under the partition lock: where a pass starts ({@link #cleaningInput}) and
 * putting a cleaned group in place ({@link #swap}). The pass itself ({@link PartitionCleaning}) reads and
 * writes outside the lock.
 *
 * <p>Both run on a {@code kaas-log-cleaner} thread, holding the lock through {@link PartitionCore} for
 * the read or the swap only.
 */
final class CleanedGroupSwap {
    private static final Logger LOG = LoggerFactory.getLogger(CleanedGroupSwap.class);

    /** What one cleaning pass starts from, taken together under the lock. */
    record CleaningInput(TopicConfig topic, List<Segment> segments, CleanableLog log) {}

    private final TopicPartition id;
    private final Path dir;
    private final PartitionCore core;
    private final EngineObserver observer;

    CleanedGroupSwap(TopicPartition id, Path dir, PartitionCore core, EngineObserver observer) {
        this.id = id;
        this.dir = dir;
        this.core = core;
        this.observer = observer;
    }

    /** Empty when the partition is closed, failed or not compacted. */
    Optional<CleaningInput> cleaningInput(long firstDirtyOffset) {
        return core.read(g -> {
            if (!core.healthy() || !g.topicConfig.compacted()) {
                return Optional.empty();
            }
            List<Segment> segments = g.log.readerCopy();
            return Optional.of(new CleaningInput(
                    g.topicConfig,
                    segments,
                    new CleanableLog(
                            dir,
                            segments.stream().map(Segment::name).toList(),
                            g.logStartOffset,
                            g.txns.lastStableOffset(g.log.nextOffset()),
                            g.producers.lastBatchBaseOffsets(),
                            firstDirtyOffset)));
        });
    }

    /**
     * Puts a cleaned group in place, under the lock: the old segments' log channels are held open (and
     * their index entries kept) so a reader still on the old view keeps reading their old bytes, the
     * files are swapped ({@link CleanerSwap#commit}), readers get the new list, and only then are the
     * old segments retired (a reader that meets a retired one re-reads the view, as after retention).
     * When the group changed since the pass began (retention), the pass is abandoned before any file moves.
     * A failure after the swap committed fails the partition: its open segments no longer match the
     * files, and a reopen (recovery) finishes the swap.
     */
    void swap(Path dir, SegmentName target, List<SegmentName> replaced) throws IOException {
        List<CachedFile.Handle> held = new ArrayList<>();
        List<Segment> old;
        try {
            old = core.change(g -> swapUnderLock(g, dir, target, replaced, held));
        } catch (IOException | RuntimeException e) {
            held.forEach(CachedFile.Handle::close);
            throw e;
        }
        for (Segment s : old) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the replaced {} failed: {}", id, s, e.toString());
            }
        }
        held.forEach(CachedFile.Handle::close);
    }

    /** The files swapped and the list changed; the new view is published as the lock is let go. Holds lock. */
    private List<Segment> swapUnderLock(
            GuardedState g, Path dir, SegmentName target, List<SegmentName> replaced, List<CachedFile.Handle> held)
            throws IOException {
        if (!core.healthy()) {
            throw new IOException(id + ": partition closed while cleaning");
        }
        List<Segment> old = g.log.closedSegmentsNamed(replaced);
        if (old == null) {
            throw new IOException(id + ": segments changed while cleaning (retention); the pass is abandoned");
        }
        for (Segment s : old) {
            held.add(s.holdForSwap());
        }
        try {
            CleanerSwap.commit(dir, target, replaced);
            g.log.replace(old, target);
        } catch (IOException | RuntimeException e) {
            StorageException s = new StorageException(
                    StorageException.Kind.IO,
                    id + ": cleaner swap failed (" + e.getMessage() + "); reopen the partition to finish it",
                    e);
            core.fail(s);
            observer.partitionFailed(id, s);
            throw e;
        }
        return old;
    }
}
