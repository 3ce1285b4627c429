package io.kaas.storage.cleaner;

import io.kaas.storage.format.CleanerCheckpoint;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.kafka.storage.internals.log.OffsetMap;

/**
 * One cleaning pass over one partition, Apache's algorithm on kaas's files, in four steps:
 * <ol>
 *   <li><b>Bounds</b> ({@link #bounds}). Cleanable are the closed segments lying wholly below the first
 *       uncleanable offset: the active segment's base, the last stable offset, and the first dirty segment
 *       holding a record younger than min.compaction.lag.ms, whichever is lowest. (Apache also cleans the part
 *       of a segment below the last stable offset; kaas cleans whole closed segments only.)</li>
 *   <li><b>Map</b> ({@link OffsetMapBuilder}). From the first dirty offset ({@code cleaner-checkpoint.json}),
 *       each key's latest offset goes into Apache's {@code SkimpyOffsetMap} sized by
 *       log.cleaner.dedupe.buffer.size; records of aborted transactions ({@link AbortedRanges}) are skipped.
 *       When the map fills, the pass ends there and the next one goes on.</li>
 *   <li><b>Clean</b> ({@link CleanedGroupWriter}). Every cleanable segment up to the mapped end, in groups of
 *       up to segment.bytes, is filtered by {@link CleanerFilter} into one new segment per group, which the
 *       {@link SwapCommit} ({@link CleanerSwap}) puts in place atomically.</li>
 *   <li><b>Checkpoint.</b> The mapped end is written to {@code cleaner-checkpoint.json}.</li>
 * </ol>
 * This package is the one place in kaas that decodes and rebuilds record batches; everything else
 * treats them as opaque bytes. A batch that fails its CRC stops the pass before anything is swapped
 * ({@link BatchIntegrity}).
 *
 * <p>Not thread-safe: one instance per cleaner thread (it owns the map and, in {@link CleanerBuffers}, the
 * buffers its passes share).
 */
public final class LogCleaner {
    private final CleanerOptions options;
    private final CleanerBuffers buffers;
    private final CodecTripwire tripwire;
    private final OffsetMapBuilder mapPass;
    private final CleanedGroupWriter copyPass;

    /** Puts a cleaned segment in place of the ones it was made from; the engine's also swaps its open segments. */
    @FunctionalInterface
    public interface SwapCommit {
        /** The {@code .cleaned} files of {@code target} are complete and fsynced; {@code replaced} are still in place. */
        void commit(Path dir, SegmentName target, List<SegmentName> replaced) throws IOException;
    }

    /** The offline cleaner: swaps files only ({@link CleanerSwap#commit}), never stopped. */
    public LogCleaner(CleanerOptions options) {
        this(options, CleanerSwap::commit, () -> false, CodecTripwire.NONE);
    }

    /**
     * @param swap    how a cleaned group is put in place
     * @param stopped checked between reads: true abandons the pass (nothing half-swapped; the next pass starts over)
     * @param tripwire hears the records this cleaner decodes and the batches it rebuilds
     */
    public LogCleaner(CleanerOptions options, SwapCommit swap, BooleanSupplier stopped, CodecTripwire tripwire) {
        this.options = options;
        this.tripwire = tripwire;
        this.buffers = new CleanerBuffers(options.ioBufferBytes(), stopped);
        this.mapPass = new OffsetMapBuilder(buffers, tripwire);
        this.copyPass = new CleanedGroupWriter(options, buffers, swap, tripwire);
    }

    /** The first dirty offset recorded by the last pass, or -1. */
    public static long readCheckpoint(Path dir) {
        return StateJson.read(dir.resolve(CleanerCheckpoint.FILE_NAME), CleanerCheckpoint.class)
                .map(CleanerCheckpoint::firstDirtyOffset)
                .orElse(-1L);
    }

    /** Where a pass over {@code log} would clean up to, without reading a record: for the dirty ratio and dry reports. */
    public Bounds bounds(CleanableLog log) throws IOException {
        List<SegmentName> all = log.segments();
        if (all.size() < 2) {
            return new Bounds(log.logStartOffset(), log.logStartOffset(), 0);
        }
        long activeBase = all.get(all.size() - 1).baseOffset();
        long firstDirty = log.firstDirtyOffset();
        if (firstDirty < log.logStartOffset() || firstDirty > activeBase) {
            firstDirty = log.logStartOffset();
        }
        long firstUncleanable = Math.min(activeBase, log.lastStableOffset());
        if (options.minCompactionLagMs() > 0) {
            for (int i = 0; i < all.size() - 1; i++) {
                if (all.get(i + 1).baseOffset() <= firstDirty) {
                    continue;
                }
                if (maxTimestamp(log.dir().resolve(all.get(i).logFileName()))
                        > options.nowMs() - options.minCompactionLagMs()) {
                    firstUncleanable = Math.min(firstUncleanable, all.get(i).baseOffset());
                    break;
                }
            }
        }
        int cleanable = 0;
        while (cleanable < all.size() - 1 && all.get(cleanable + 1).baseOffset() <= firstUncleanable) {
            cleanable++;
        }
        long end = cleanable == 0 ? all.get(0).baseOffset() : all.get(cleanable).baseOffset();
        return new Bounds(firstDirty, end, cleanable);
    }

    /**
     * @param firstDirtyOffset where mapping starts
     * @param cleanableEnd     the first offset not cleaned (base of the first segment not cleanable)
     * @param cleanableSegments how many of the oldest segments lie wholly below {@code cleanableEnd}
     */
    public record Bounds(long firstDirtyOffset, long cleanableEnd, int cleanableSegments) {
        public boolean anythingDirty() {
            return cleanableSegments > 0 && firstDirtyOffset < cleanableEnd;
        }
    }

    /**
     * Runs one pass. With {@code dryRun} every step runs but no file is written: the report says what
     * would be removed. {@code progress} gets the total bytes to read (negative) first, then bytes read.
     *
     * @throws StorageException DAMAGED when a batch fails its CRC (nothing was swapped for its group), IO otherwise
     */
    public CleanReport clean(CleanableLog log, boolean dryRun, LongConsumer progress) {
        try {
            return cleanOrThrow(log, dryRun, progress);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, log.dir() + ": cleaning failed: " + e.getMessage(), e);
        }
    }

    private CleanReport cleanOrThrow(CleanableLog log, boolean dryRun, LongConsumer progress) throws IOException {
        Path dir = log.dir();
        Bounds bounds = bounds(log);
        if (!bounds.anythingDirty()) {
            return CleanReport.nothing(dir, bounds.firstDirtyOffset());
        }
        // Allocated only for a pass that runs: a cleaner thread asks every compacted partition whether it is due.
        buffers.allocate();
        List<SegmentName> all = log.segments();
        long firstDirty = bounds.firstDirtyOffset();
        long cleanableEnd = bounds.cleanableEnd();
        long total = 0;
        for (int i = 0; i < bounds.cleanableSegments(); i++) {
            long size = Files.size(dir.resolve(all.get(i).logFileName()));
            total += all.get(i + 1).baseOffset() > firstDirty ? 2 * size : size;
        }
        progress.accept(-total);

        // The aborted ranges need a header walk of the whole log up to the last stable offset; a log with no
        // transactional batch in what this pass reads does not need them (an empty list gives the same verdicts),
        // so the walk runs only once a transactional batch turns up: in the cleaned part below the first dirty
        // offset (walked here), in the map pass (which then starts over with them), or possibly in the part of
        // a segment the map did not reach when it filled.
        List<TxnIndexSnapshot.Aborted> aborted =
                AbortedRanges.anyTransactional(dir, all, bounds.cleanableSegments(), firstDirty)
                        ? AbortedRanges.scan(dir, all, log.lastStableOffset())
                        : null;
        OffsetMap map = OffsetMapBuilder.newMap(cleanableEnd - firstDirty, options.dedupeBufferBytes());
        // Segments whose every batch passed its CRC check in the map pass: the copy pass does not check them again.
        Set<SegmentName> verified = new HashSet<>();
        long[] firstTry = {0};
        OffsetMapBuilder.Result mapped = mapPass.mapDirty(dir, all, bounds, map, aborted, verified, n -> {
            firstTry[0] += n;
            progress.accept(n);
        });
        if (mapped == OffsetMapBuilder.Result.TRANSACTIONAL) {
            aborted = AbortedRanges.scan(dir, all, log.lastStableOffset());
            map.clear();
            verified.clear();
            long[] again = {0};
            mapped = mapPass.mapDirty(dir, all, bounds, map, aborted, verified, n -> {
                // the bytes read again up to where the first try stopped were reported already
                long newly = again[0] + n - Math.max(again[0], firstTry[0]);
                again[0] += n;
                if (newly > 0) {
                    progress.accept(newly);
                }
            });
        }
        if (aborted == null) {
            aborted = mapped == OffsetMapBuilder.Result.FULL
                    ? AbortedRanges.scan(dir, all, log.lastStableOffset())
                    : List.of();
        }
        long endOffset = map.latestOffset() + 1;

        List<SegmentName> toClean = new ArrayList<>();
        for (int i = 0; i < bounds.cleanableSegments() && all.get(i).baseOffset() < endOffset; i++) {
            toClean.add(all.get(i));
        }
        CleanerCounts counts = new CleanerCounts();
        CleanedTransactions txns = new CleanedTransactions(
                AbortedRanges.overlapping(aborted, toClean.get(0).baseOffset(), endOffset), tripwire);
        CleanerFilter filter = new CleanerFilter(
                options.nowMs(),
                options.deleteRetentionMs(),
                map,
                txns,
                log.lastBatchOfProducer(),
                cleanableEnd,
                counts);
        long retained = 0;
        List<List<SegmentName>> groups = copyPass.groups(dir, toClean, all, cleanableEnd);
        for (List<SegmentName> group : groups) {
            retained += copyPass.clean(dir, group, filter, counts, verified, dryRun, progress);
        }
        if (!dryRun) {
            StateJson.write(
                    dir.resolve(CleanerCheckpoint.FILE_NAME),
                    new CleanerCheckpoint(CleanerCheckpoint.VERSION, endOffset));
        }
        return new CleanReport(
                dir,
                firstDirty,
                endOffset,
                toClean.size(),
                groups.size(),
                map.size(),
                counts.recordsRead,
                counts.recordsRead - retained,
                counts.supersededRemoved,
                counts.keysRemoved,
                counts.abortedRemoved,
                counts.markersRemoved,
                counts.unkeyedRemoved,
                counts.bytesRead,
                counts.bytesWritten,
                groups);
    }

    private static long maxTimestamp(Path log) throws IOException {
        long max = -1;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, 0, ch.size());
            while (cursor.next() == HeaderCursor.Framing.BATCH) {
                max = Math.max(max, cursor.maxTimestamp());
            }
        }
        return max;
    }
}
