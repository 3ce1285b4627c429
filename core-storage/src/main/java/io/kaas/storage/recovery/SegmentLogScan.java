package io.kaas.storage.recovery;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.ScannedBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The two walks the recovery scan makes over one segment's log: the CRC-checked scan that finds
 * where the valid part ends and how (clean, torn, zero-filled, or damage: a bad batch with valid data
 * after it, judged by {@link BatchScanner#validDataFollows}), and the framing-only count of what
 * {@code --force} would discard.
 */
final class SegmentLogScan {
    private SegmentLogScan() {}

    /**
     * @param nextOffset offset after the last valid batch, -1 when the scan found none
     * @param stop       why the scan stopped before the end, null after a clean end
     * @param zeroTail   the bytes from the stop to the end are all zero
     * @param damaged    a valid batch follows the bad one (not a torn tail)
     */
    record Result(long validEnd, long nextOffset, CorruptBatchException stop, boolean zeroTail, boolean damaged,
                  long bytesRead) {}

    /** What a framing-only walk counts. */
    record Counts(long batches, long records) {}

    /**
     * Scans {@code [start, size)} of {@code log}: appends an index entry to {@code entries} wherever
     * {@code policy} says one is due and shows each valid batch to {@code visitor} (may be null).
     * Offsets must start at {@code startOffset}, increase, and fit an index based at {@code baseOffset}.
     */
    static Result scan(Path log, long start, long size, long startOffset, long baseOffset, IndexPolicy policy,
                       List<IndexEntry> entries, RecoveryScan.TailVisitor visitor) throws IOException {
        return scan(log, start, size, startOffset, baseOffset, policy, entries, visitor, Long.MAX_VALUE);
    }

    /**
     * {@link #scan} that also ends, cleanly, at the first batch holding an offset at or past
     * {@code offsetLimit}: where a newer leader epoch began, so that batch and all after it are a fenced
     * ex-leader's late writes ({@code validEnd} is that batch's position).
     */
    static Result scan(Path log, long start, long size, long startOffset, long baseOffset, IndexPolicy policy,
                       List<IndexEntry> entries, RecoveryScan.TailVisitor visitor, long offsetLimit) throws IOException {
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            BatchScanner scanner = new BatchScanner(ch, log, start, size, startOffset)
                    .limitOffsets(baseOffset + Integer.MAX_VALUE);
            IndexEntry lastEntry = entries.isEmpty() ? null : entries.get(entries.size() - 1);
            long nextOffset = -1;
            for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                if (b.header().lastOffset() >= offsetLimit) {
                    return new Result(b.position(), nextOffset, null, false, false, scanner.bytesRead());
                }
                if (policy.due(b.position(), lastEntry)) {
                    lastEntry = new IndexEntry(b.header().lastOffset(), (int) b.position());
                    entries.add(lastEntry);
                }
                nextOffset = b.header().nextOffset();
                if (visitor != null) {
                    visitor.visit(b);
                }
            }
            CorruptBatchException stop = scanner.stopReason();
            boolean zeroTail = stop != null && scanner.tailIsZeros();
            boolean damaged = stop != null && !zeroTail && scanner.validDataFollows();
            return new Result(scanner.position(), nextOffset, stop, zeroTail, damaged, scanner.bytesRead());
        }
    }

    /**
     * Counts the batches in {@code [from, end)} of {@code log} by framing only: CRC and magic are
     * ignored, a bad batch is stepped over by the rule every walk shares ({@link HeaderCursor#stepOver}),
     * and the count ends where the framing does.
     */
    static Counts countFramed(Path log, long from, long end) throws IOException {
        long batches = 0;
        long records = 0;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, from, end);
            for (HeaderCursor.Framing f = cursor.next(); f == HeaderCursor.Framing.BATCH
                    || f == HeaderCursor.Framing.BAD_MAGIC; f = cursor.next()) {
                if (f == HeaderCursor.Framing.BAD_MAGIC) {
                    cursor.stepOver();
                }
                batches++;
                records += Math.max(0, cursor.recordCount());
            }
        }
        return new Counts(batches, records);
    }
}
