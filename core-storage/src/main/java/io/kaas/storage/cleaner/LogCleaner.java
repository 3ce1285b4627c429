package io.kaas.storage.cleaner;

import io.kaas.storage.format.CleanerCheckpoint;
import io.kaas.storage.format.CleanerSwapIntent;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.segment.SparseIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.DigestException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.kafka.storage.internals.log.OffsetMap;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;

/**
 * One cleaning pass over one partition, Apache's algorithm on kaas's files:
 * <ol>
 *   <li><b>Bounds.</b> Cleanable are the closed segments lying wholly below the first uncleanable offset:
 *       the active segment's base, the last stable offset, and the first dirty segment holding a record
 *       younger than min.compaction.lag.ms, whichever is lowest. (Apache also cleans the part of a segment
 *       below the last stable offset; kaas cleans whole closed segments only.)</li>
 *   <li><b>Map.</b> From the first dirty offset ({@code cleaner-checkpoint.json}), each key's latest offset
 *       goes into Apache's {@link SkimpyOffsetMap} (MD5 of the key → offset, 24 bytes a key) sized by
 *       log.cleaner.dedupe.buffer.size; records of aborted transactions are skipped. When the map fills,
 *       the pass ends there and the next one goes on.</li>
 *   <li><b>Clean.</b> Every cleanable segment up to the mapped end, in groups of up to segment.bytes, is
 *       filtered by {@link CleanerFilter} through kafka-clients' {@link MemoryRecords#filterTo} into one
 *       new segment per group, which {@link CleanerSwap} puts in place atomically.</li>
 *   <li><b>Checkpoint.</b> The mapped end is written to {@code cleaner-checkpoint.json}.</li>
 * </ol>
 * This package is the one place in kaas that decodes and rebuilds record batches; everything else
 * treats them as opaque bytes. A batch that fails its CRC stops the pass before anything is swapped.
 *
 * <p>Not thread-safe: one instance per cleaner thread (it owns the map and the buffers).
 */
public final class LogCleaner {
    private final CleanerOptions options;
    private final SwapCommit swap;
    private final BooleanSupplier stopped;
    private final BufferSupplier decompression = BufferSupplier.create();
    private ByteBuffer readBuffer;
    private ByteBuffer writeBuffer;

    /** Puts a cleaned segment in place of the ones it was made from; the engine's also swaps its open segments. */
    @FunctionalInterface
    public interface SwapCommit {
        /** The {@code .cleaned} files of {@code target} are complete and fsynced; {@code replaced} are still in place. */
        void commit(Path dir, SegmentName target, List<SegmentName> replaced) throws IOException;
    }

    /** The offline cleaner: swaps files only ({@link CleanerSwap#commit}), never stopped. */
    public LogCleaner(CleanerOptions options) {
        this(options, CleanerSwap::commit, () -> false);
    }

    /**
     * @param swap    how a cleaned group is put in place
     * @param stopped checked between reads: true abandons the pass (nothing half-swapped; the next pass starts over)
     */
    public LogCleaner(CleanerOptions options, SwapCommit swap, BooleanSupplier stopped) {
        this.options = options;
        this.swap = swap;
        this.stopped = stopped;
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
        if (readBuffer == null) {
            // Allocated only for a pass that runs: a cleaner thread asks every compacted partition whether it is due.
            readBuffer = ByteBuffer.allocate(options.ioBufferBytes());
            writeBuffer = ByteBuffer.allocate(options.ioBufferBytes());
        }
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
        OffsetMap map = newMap(cleanableEnd - firstDirty);
        // Segments whose every batch passed its CRC check in the map pass: the copy pass does not check them again.
        Set<SegmentName> verified = new HashSet<>();
        long[] firstTry = {0};
        MapResult mapped = mapDirty(dir, all, bounds, map, aborted, verified, n -> {
            firstTry[0] += n;
            progress.accept(n);
        });
        if (mapped == MapResult.TRANSACTIONAL) {
            aborted = AbortedRanges.scan(dir, all, log.lastStableOffset());
            map.clear();
            verified.clear();
            long[] again = {0};
            mapped = mapDirty(dir, all, bounds, map, aborted, verified, n -> {
                // the bytes read again up to where the first try stopped were reported already
                long newly = again[0] + n - Math.max(again[0], firstTry[0]);
                again[0] += n;
                if (newly > 0) {
                    progress.accept(newly);
                }
            });
        }
        if (aborted == null) {
            aborted = mapped == MapResult.FULL ? AbortedRanges.scan(dir, all, log.lastStableOffset()) : List.of();
        }
        long endOffset = map.latestOffset() + 1;

        List<SegmentName> toClean = new ArrayList<>();
        for (int i = 0; i < bounds.cleanableSegments() && all.get(i).baseOffset() < endOffset; i++) {
            toClean.add(all.get(i));
        }
        CleanerCounts counts = new CleanerCounts();
        CleanedTransactions txns =
                new CleanedTransactions(overlapping(aborted, toClean.get(0).baseOffset(), endOffset));
        CleanerFilter filter = new CleanerFilter(
                options.nowMs(),
                options.deleteRetentionMs(),
                map,
                txns,
                log.lastBatchOfProducer(),
                cleanableEnd,
                counts);
        long retained = 0;
        List<List<SegmentName>> groups = group(dir, toClean, all, cleanableEnd);
        for (List<SegmentName> group : groups) {
            retained += cleanGroup(dir, group, filter, counts, verified, dryRun, progress);
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

    private OffsetMap newMap(long offsetSpan) {
        // No more slots than the dirty range has offsets: a small log does not take the whole buffer.
        long needed = (long) (offsetSpan / CleanerOptions.LOAD_FACTOR + 16) * 24;
        long memory = Math.min(Math.min(options.dedupeBufferBytes(), needed), Integer.MAX_VALUE - 64);
        try {
            return new SkimpyOffsetMap((int) Math.max(memory, 24 * 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is not available", e);
        }
    }

    private enum MapResult {
        MAPPED,
        FULL,
        TRANSACTIONAL
    }

    /**
     * The map pass over the dirty cleanable segments. With {@code aborted} null (not walked yet) it stops at the first
     * transactional or control batch and says so: the caller walks them and starts over.
     */
    private MapResult mapDirty(
            Path dir,
            List<SegmentName> all,
            Bounds bounds,
            OffsetMap map,
            List<TxnIndexSnapshot.Aborted> aborted,
            Set<SegmentName> verified,
            LongConsumer progress)
            throws IOException {
        long firstDirty = bounds.firstDirtyOffset();
        CleanedTransactions txns = new CleanedTransactions(
                aborted == null ? List.of() : overlapping(aborted, firstDirty, bounds.cleanableEnd()));
        int maxDesired = (int) (map.slots() * CleanerOptions.LOAD_FACTOR);
        for (int i = 0; i < bounds.cleanableSegments(); i++) {
            long next = all.get(i + 1).baseOffset();
            if (next <= firstDirty) {
                continue;
            }
            MapResult r = mapSegment(
                    dir.resolve(all.get(i).logFileName()),
                    firstDirty,
                    map,
                    txns,
                    aborted != null,
                    maxDesired,
                    progress);
            if (r != MapResult.MAPPED) {
                return r;
            }
            verified.add(all.get(i));
            map.updateLatestOffset(next - 1);
        }
        return MapResult.MAPPED;
    }

    private static List<TxnIndexSnapshot.Aborted> overlapping(
            List<TxnIndexSnapshot.Aborted> aborted, long from, long to) {
        return aborted.stream()
                .filter(a -> a.lastOffset() >= from && a.firstOffset() < to)
                .toList();
    }

    /**
     * Adds {@code log}'s keys at or past {@code firstDirty} to the map, checking every batch's CRC: FULL when the map
     * filled up, TRANSACTIONAL when {@code !txnsKnown} and a transactional batch turned up.
     */
    private MapResult mapSegment(
            Path log,
            long firstDirty,
            OffsetMap map,
            CleanedTransactions txns,
            boolean txnsKnown,
            int maxDesired,
            LongConsumer progress)
            throws IOException {
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = ch.size();
            long position = 0;
            long minBase = BatchOffsetOrder.baseOffsetOf(log);
            while (position < size) {
                fill(ch, position);
                MemoryRecords records = MemoryRecords.readableRecords(readBuffer);
                RecordKeys keys = new RecordKeys(readBuffer);
                long start = position;
                for (MutableRecordBatch batch : records.batches()) {
                    checkCrc(batch, log, position);
                    minBase = checkOffsets(batch, log, position, minBase);
                    if (!txnsKnown && (batch.isTransactional() || batch.isControlBatch())) {
                        progress.accept(position - start);
                        return MapResult.TRANSACTIONAL;
                    }
                    if (batch.isControlBatch()) {
                        txns.onControlBatch(batch);
                    } else if (txns.onDataBatch(batch)) {
                        // aborted: its keys do not count
                    } else if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2
                            && batch.compressionType() == CompressionType.NONE) {
                        boolean complete;
                        try {
                            complete = keys.forEach(
                                    (int) (position - start),
                                    batch.sizeInBytes(),
                                    batch.baseOffset(),
                                    batch.countOrNull(),
                                    (key, offset) -> {
                                        if (offset < firstDirty) {
                                            return true;
                                        }
                                        if (map.size() >= maxDesired) {
                                            return false;
                                        }
                                        map.put(key, offset);
                                        return true;
                                    });
                        } catch (IllegalArgumentException e) {
                            throw damaged(batch, log, position, e.getMessage());
                        }
                        if (!complete) {
                            progress.accept(position - start);
                            return MapResult.FULL;
                        }
                    } else {
                        try (CloseableIterator<Record> it = batch.streamingIterator(decompression)) {
                            while (it.hasNext()) {
                                Record r = it.next();
                                if (r.hasKey() && r.offset() >= firstDirty) {
                                    if (map.size() >= maxDesired) {
                                        progress.accept(position - start);
                                        return MapResult.FULL;
                                    }
                                    map.put(r.key(), r.offset());
                                }
                            }
                        }
                    }
                    if (batch.lastOffset() >= firstDirty) {
                        map.updateLatestOffset(batch.lastOffset());
                    }
                    position += batch.sizeInBytes();
                }
                progress.accept(position - start);
                if (position == start) {
                    growFor(ch, log, position);
                }
            }
            return MapResult.MAPPED;
        } catch (DigestException e) {
            throw new IllegalStateException("MD5 digest failed", e);
        }
    }

    /** Cleans {@code group} into one segment named as its first; returns the records kept. */
    private long cleanGroup(
            Path dir,
            List<SegmentName> group,
            CleanerFilter filter,
            CleanerCounts counts,
            Set<SegmentName> verified,
            boolean dryRun,
            LongConsumer progress)
            throws IOException {
        SegmentName target = group.get(0);
        Path cleanedLog = CleanerSwap.cleanedLog(dir, target);
        Path cleanedIndex = CleanerSwap.cleanedIndex(dir, target);
        List<IndexEntry> entries = new ArrayList<>();
        long retained = 0;
        long outPosition = 0;
        long lastModified = 0;
        FileChannel out = null;
        try {
            if (!dryRun) {
                Files.deleteIfExists(cleanedLog);
                out = FileChannel.open(cleanedLog, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
            for (SegmentName source : group) {
                Path log = dir.resolve(source.logFileName());
                lastModified =
                        Math.max(lastModified, Files.getLastModifiedTime(log).toMillis());
                try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ)) {
                    long size = in.size();
                    long position = 0;
                    long minBase = source.baseOffset();
                    while (position < size) {
                        fill(in, position);
                        MemoryRecords records = MemoryRecords.readableRecords(readBuffer);
                        if (!verified.contains(source)) {
                            for (MutableRecordBatch batch : records.batches()) {
                                checkCrc(batch, log, position);
                                minBase = checkOffsets(batch, log, position, minBase);
                            }
                        }
                        writeBuffer.clear();
                        MemoryRecords.FilterResult result =
                                records.filterTo(filter, writeBuffer, decompression, Integer.MAX_VALUE);
                        retained += result.messagesRetained();
                        ByteBuffer output = result.outputBuffer();
                        output.flip();
                        for (MutableRecordBatch kept : MemoryRecords.readableRecords(output.duplicate())
                                .batches()) {
                            IndexEntry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
                            if (options.indexPolicy().due(outPosition, last)) {
                                entries.add(new IndexEntry(kept.lastOffset(), (int) outPosition));
                            }
                            outPosition += kept.sizeInBytes();
                        }
                        if (out != null) {
                            while (output.hasRemaining()) {
                                out.write(output);
                            }
                        }
                        if (output.capacity() > writeBuffer.capacity()) {
                            writeBuffer = ByteBuffer.allocate(output.capacity());
                        }
                        position += result.bytesRead();
                        counts.bytesRead += result.bytesRead();
                        progress.accept(result.bytesRead());
                        if (result.bytesRead() == 0) {
                            growFor(in, log, position);
                        }
                    }
                }
            }
            counts.bytesWritten += outPosition;
            if (out != null) {
                out.force(true);
                out.close();
                out = null;
                Files.setLastModifiedTime(cleanedLog, FileTime.fromMillis(lastModified));
                try (FileChannel idx = FileChannel.open(
                        cleanedIndex,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    ByteBuffer bytes = ByteBuffer.wrap(SparseIndex.encode(target.baseOffset(), entries));
                    while (bytes.hasRemaining()) {
                        idx.write(bytes);
                    }
                    idx.force(true);
                }
                AtomicFile.fsyncDirectory(dir);
                swap.commit(dir, target, group);
            }
            return retained;
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                try {
                    out.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (!dryRun && !Files.exists(dir.resolve(CleanerSwapIntent.FILE_NAME))) {
                Files.deleteIfExists(cleanedLog);
                Files.deleteIfExists(cleanedIndex);
            }
            throw e;
        }
    }

    /**
     * Groups consecutive segments up to segment.bytes in all and 2^31 offsets from the group's base (an
     * index entry holds a 32-bit relative offset), oldest first.
     */
    private List<List<SegmentName>> group(
            Path dir, List<SegmentName> segments, List<SegmentName> all, long cleanableEnd) throws IOException {
        long maxBytes = Math.min(options.segmentBytes(), Integer.MAX_VALUE);
        List<List<SegmentName>> groups = new ArrayList<>();
        List<SegmentName> current = new ArrayList<>();
        long bytes = 0;
        for (SegmentName s : segments) {
            long size = Files.size(dir.resolve(s.logFileName()));
            int i = all.indexOf(s);
            long lastPossibleOffset = (i + 1 < all.size() ? all.get(i + 1).baseOffset() : cleanableEnd) - 1;
            boolean fits = !current.isEmpty()
                    && bytes + size <= maxBytes
                    && lastPossibleOffset - current.get(0).baseOffset() <= Integer.MAX_VALUE;
            if (!current.isEmpty() && !fits) {
                groups.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(s);
            bytes += size;
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    /** Reads from {@code position} into the read buffer, as much as fits; flips it. */
    private void fill(FileChannel ch, long position) throws IOException {
        if (stopped.getAsBoolean()) {
            throw new StorageException(StorageException.Kind.CLOSED, "cleaning stopped");
        }
        readBuffer.clear();
        long p = position;
        while (readBuffer.hasRemaining()) {
            int n = ch.read(readBuffer, p);
            if (n < 0) {
                break;
            }
            p += n;
        }
        readBuffer.flip();
    }

    /** The batch at {@code position} is larger than the buffers: double them (up to its size), or fail on a bad length. */
    private void growFor(FileChannel ch, Path log, long position) throws IOException {
        HeaderCursor cursor = new HeaderCursor(ch, position, ch.size());
        if (cursor.next() != HeaderCursor.Framing.BATCH) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    log + ":" + position + ": no whole batch here (" + cursor.framing()
                            + ") — run `kaas verify` / `kaas recover` on the partition");
        }
        int needed = (int) Math.min(cursor.sizeInBytes(), CleanerOptions.MAX_IO_BUFFER_BYTES);
        int size = readBuffer.capacity();
        while (size < needed) {
            size = (int) Math.min((long) size * 2, CleanerOptions.MAX_IO_BUFFER_BYTES);
        }
        readBuffer = ByteBuffer.allocate(size);
        writeBuffer = ByteBuffer.allocate(Math.max(size, writeBuffer.capacity()));
    }

    private static void checkCrc(MutableRecordBatch batch, Path log, long position) {
        try {
            batch.ensureValid();
        } catch (KafkaException e) {
            throw damaged(batch, log, position, e.getMessage());
        }
    }

    /** {@link BatchOffsetOrder#check}, failing the pass as damage; returns the offset the next batch must reach. */
    private static long checkOffsets(MutableRecordBatch batch, Path log, long position, long minBase) {
        BatchOffsetOrder.check(batch, minBase).ifPresent(what -> {
            throw damaged(batch, log, position, what);
        });
        return batch.nextOffset();
    }

    private static StorageException damaged(MutableRecordBatch batch, Path log, long position, String what) {
        return new StorageException(
                StorageException.Kind.DAMAGED,
                log + ":" + position + ": batch at offset " + batch.baseOffset()
                        + " (the batch at or after this byte): " + what
                        + " — run `kaas verify` / `kaas recover`; nothing was cleaned");
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
