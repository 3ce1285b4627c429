package io.kaas.storage.recovery;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.ResyncScan;
import io.kaas.storage.segment.ScannedBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The two walks the recovery scan makes over one segment's log: the CRC-checked scan that finds
 * where the valid part ends and what lies after it, and the framing-only count of what
 * {@code --force} would discard.
 *
 * <p>After a stop the scan goes on by evidence, not by length: a {@link ResyncScan} looks for the
 * next CRC-valid batch whose offsets continue the log, the scan resumes there, and so on to the end.
 * What it finds is both the verdict's evidence (intact data after the bad bytes) and the salvage plan
 * (the byte ranges to remove, the index of what remains). A clean scan never resyncs.
 */
final class SegmentLogScan {
    private SegmentLogScan() {}

    /**
     * Bytes {@code [start, end)} of a log that are not part of any batch the scan can keep; a salvage
     * removing them leaves the offsets {@code [gapFrom, gapTo)} unused ({@code gapTo} -1 when the range
     * runs to the end of the file).
     */
    record BadRange(long start, long end, String why, long gapFrom, long gapTo) {
        long length() {
            return end - start;
        }
    }

    /**
     * @param validEnd         where the valid prefix ends (the first bad byte), or the end
     * @param nextOffset       offset after the last valid batch of that prefix, -1 when it holds none
     * @param stop             why the prefix ended before the end, null after a clean end
     * @param zeroTail         the bytes from the stop to the end are all zero
     * @param damaged          a CRC-valid batch continuing the log was found after the stop
     * @param bad              the ranges a salvage removes (empty after a clean end); the last may run to the end
     * @param salvageNext      offset after the last batch a salvage keeps, -1 when it keeps none
     * @param salvageEntries   the index of the segment once the bad ranges are removed
     * @param pastTheLog       where no batch continues the log: a CRC-valid batch across or after the stop
     *                         whose offsets are past the log's, which no torn write leaves (so damage), in
     *                         words; null when there is none
     */
    record Result(
            long validEnd,
            long nextOffset,
            CorruptBatchException stop,
            boolean zeroTail,
            boolean damaged,
            long bytesRead,
            List<BadRange> bad,
            long salvageNext,
            List<IndexEntry> salvageEntries,
            String pastTheLog) {
        Result(
                long validEnd,
                long nextOffset,
                CorruptBatchException stop,
                boolean zeroTail,
                boolean damaged,
                long bytesRead) {
            this(validEnd, nextOffset, stop, zeroTail, damaged, bytesRead, List.of(), nextOffset, List.of(), null);
        }
    }

    /** What a framing-only walk counts. */
    record Counts(long batches, long records) {}

    /**
     * Scans {@code [start, size)} of {@code log}: appends an index entry to {@code entries} wherever
     * {@code policy} says one is due and shows each valid batch to {@code visitor} (may be null).
     * Offsets must start at {@code startOffset}, increase, and fit an index based at {@code baseOffset}.
     */
    static Result scan(
            Path log,
            long start,
            long size,
            long startOffset,
            long baseOffset,
            IndexPolicy policy,
            List<IndexEntry> entries,
            RecoveryScan.TailVisitor visitor)
            throws IOException {
        return scan(
                log,
                start,
                size,
                startOffset,
                baseOffset,
                policy,
                entries,
                visitor,
                Long.MAX_VALUE,
                BatchNeighbours.NONE);
    }

    /**
     * {@link #scan} that also ends, cleanly, at the first batch holding an offset at or past
     * {@code offsetLimit}: where a newer leader epoch began, so that batch and all after it are a fenced
     * ex-leader's late writes ({@code validEnd} is that batch's position).
     */
    static Result scan(
            Path log,
            long start,
            long size,
            long startOffset,
            long baseOffset,
            IndexPolicy policy,
            List<IndexEntry> entries,
            RecoveryScan.TailVisitor visitor,
            long offsetLimit,
            BatchNeighbours neighbours)
            throws IOException {
        long maxLast = baseOffset + Integer.MAX_VALUE;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            Walk walk = new Walk(policy, visitor, offsetLimit, entries, startOffset, neighbours);
            BatchScanner scanner = new BatchScanner(ch, log, start, size, startOffset).limitOffsets(maxLast);
            if (walk.run(scanner, 0)) {
                return new Result(walk.limitAt, walk.nextOffset, null, false, false, scanner.bytesRead());
            }
            CorruptBatchException stop = walk.fieldStop != null ? walk.fieldStop : scanner.stopReason();
            long bytesRead = scanner.bytesRead();
            if (stop == null) {
                return new Result(scanner.position(), walk.nextOffset, null, false, false, bytesRead);
            }
            long nextAtStop = walk.nextOffset;
            long validEnd = walk.fieldStop != null ? walk.fieldStop.position() : scanner.position();
            // A CRC-valid batch whose base offset (outside the CRC) jumped past where the next batch
            // starts: the batch with the bad field is the one before the stop, not the stop.
            if (walk.fieldStop == null
                    && walk.lastPosition >= 0
                    && walk.jumped
                    && stop.reason() == CorruptBatchException.Reason.BAD_OFFSET_RANGE) {
                long stoppedBase = baseAt(ch, validEnd);
                // Or the batch after starts exactly where the jumped one would end had it followed the one
                // before it (its offset count is inside the CRC): the jump is the bad field.
                boolean fitsUnjumped = stoppedBase == walk.nextBeforeLast + (walk.nextOffset - walk.lastBase);
                if (stoppedBase >= walk.nextBeforeLast && (stoppedBase < walk.lastBase || fitsUnjumped)) {
                    stop = new CorruptBatchException(
                            CorruptBatchException.Reason.BAD_OFFSET_RANGE,
                            walk.lastPosition,
                            "base offset " + walk.lastBase
                                    + " (outside the CRC) disagrees with its neighbours: the batch"
                                    + " before ends at offset " + (walk.nextBeforeLast - 1)
                                    + ", the batch after starts at "
                                    + stoppedBase);
                    validEnd = walk.lastPosition;
                    nextAtStop = walk.nextBeforeLast;
                    walk.undoLast();
                }
            }
            boolean zeroTail = HeaderCursor.zerosFrom(ch, validEnd, size, n -> {});
            long keptStart = walk.keptPosition; // the resumed walks below move it
            List<IndexEntry> salvageEntries = new ArrayList<>(entries);
            walk.entries = salvageEntries;
            List<BadRange> bad = new ArrayList<>();
            long from = validEnd;
            long expected = nextAtStop >= 0 ? nextAtStop : startOffset;
            String why = stop.getMessage();
            long removed = 0;
            // The stop is recorded in bad ranges from here on: a resumed walk reports only its own stops.
            walk.fieldStop = null;
            while (true) {
                ResyncScan.Found found =
                        zeroTail && bad.isEmpty() ? null : ResyncScan.find(ch, from + 1, size, expected, maxLast);
                if (found == null || found.header().lastOffset() >= offsetLimit) {
                    bad.add(new BadRange(from, size, why, expected, -1));
                    break;
                }
                bad.add(new BadRange(
                        from, found.position(), why, expected, found.header().baseOffset()));
                removed += found.position() - from;
                BatchScanner resumed =
                        new BatchScanner(ch, log, found.position(), size, expected).limitOffsets(maxLast);
                boolean limited = walk.run(resumed, removed);
                bytesRead += resumed.bytesRead();
                CorruptBatchException resumedStop = walk.fieldStop != null ? walk.fieldStop : resumed.stopReason();
                if (limited || resumedStop == null) {
                    break;
                }
                from = walk.fieldStop != null ? walk.fieldStop.position() : resumed.position();
                expected = walk.nextOffset >= 0 ? walk.nextOffset : expected;
                why = resumedStop.getMessage();
                walk.fieldStop = null;
            }
            boolean damaged = bad.get(0).end() < size;
            String pastTheLog = null;
            if (!damaged) {
                // No batch continues the log. A CRC-valid batch whose offsets are past the log's yet cannot be
                // kept where it lies (it starts inside the batch before the stop, or its base offset no longer
                // fits the segment) is no torn write either: damage, removed with the range by a salvage.
                long searchFrom = keptStart >= 0 && keptStart < validEnd ? keptStart + 1 : validEnd;
                ResyncScan.Found f = ResyncScan.findPastTheLog(
                        ch,
                        searchFrom,
                        zeroTail ? validEnd : size,
                        size,
                        expectedAtStop(nextAtStop, startOffset),
                        validEnd);
                while (f != null && f.position() > validEnd && fits(f, maxLast)) {
                    // the continuing search judged those (a fenced ex-leader's late writes): not evidence here
                    f = ResyncScan.findPastTheLog(
                            ch,
                            f.position() + 1,
                            zeroTail ? validEnd : size,
                            size,
                            expectedAtStop(nextAtStop, startOffset),
                            validEnd);
                }
                if (f != null) {
                    damaged = true;
                    pastTheLog = "a CRC-valid batch at byte " + f.position() + " (offsets "
                            + f.header().baseOffset()
                            + ".." + f.header().lastOffset() + ") lies "
                            + (f.position() < validEnd ? "across the stop, inside the batch before it," : "after it")
                            + (fits(f, maxLast) ? "" : " with a base offset (outside the CRC) past the segment's")
                            + "; no torn write leaves one (bit rot or a misplaced write, not a torn tail)";
                }
            }
            bytesRead += size - validEnd;
            return new Result(
                    validEnd,
                    nextAtStop,
                    stop,
                    zeroTail,
                    damaged,
                    bytesRead,
                    bad,
                    walk.nextOffset,
                    salvageEntries,
                    pastTheLog);
        }
    }

    private static long expectedAtStop(long nextAtStop, long startOffset) {
        return nextAtStop >= 0 ? nextAtStop : startOffset;
    }

    /** Whether a found batch's offsets fit the segment (an index of 32-bit relative offsets). */
    private static boolean fits(ResyncScan.Found f, long maxLast) {
        return f.header().baseOffset() <= maxLast
                && f.header().lastOffset() <= maxLast
                && f.header().lastOffset() >= f.header().baseOffset();
    }

    private static long baseAt(FileChannel ch, long position) throws IOException {
        HeaderCursor cursor = new HeaderCursor(ch, position, ch.size());
        HeaderCursor.Framing f = cursor.next();
        return f == HeaderCursor.Framing.BATCH || f == HeaderCursor.Framing.BAD_MAGIC
                ? cursor.baseOffset()
                : Long.MIN_VALUE;
    }

    /** One walk's running state: index entries, next offset, and the batch last kept (to undo it). */
    private static final class Walk {
        final IndexPolicy policy;
        final RecoveryScan.TailVisitor visitor;
        final long offsetLimit;
        final long floor;
        final BatchNeighbours neighbours;
        final boolean checkNeighbours;
        /** A batch whose fields outside the CRC disagree with {@link #neighbours}: the walk stopped before it. */
        CorruptBatchException fieldStop;

        List<IndexEntry> entries;
        IndexEntry lastEntry;
        long nextOffset = -1;
        long limitAt = -1;
        long batches;
        long lastPosition = -1;
        /** Where the last batch the walk keeps starts (-1: none); the one before it, to undo it. */
        long keptPosition = -1;

        long keptBeforeLast = -1;
        long lastBase;
        long nextBeforeLast = -1;
        int entriesBeforeLast;
        /** The last batch's base offset is above the offset after the one before it (a gap, or a damaged field). */
        boolean jumped;

        Walk(
                IndexPolicy policy,
                RecoveryScan.TailVisitor visitor,
                long offsetLimit,
                List<IndexEntry> entries,
                long floor,
                BatchNeighbours neighbours) {
            this.policy = policy;
            this.visitor = visitor;
            this.offsetLimit = offsetLimit;
            this.floor = floor;
            this.neighbours = neighbours;
            this.checkNeighbours = neighbours.any();
            this.entries = entries;
            this.lastEntry = entries.isEmpty() ? null : entries.get(entries.size() - 1);
        }

        /** Walks {@code scanner} to its stop; positions in the index move back by {@code shift}. True when it met the offset limit. */
        boolean run(BatchScanner scanner, long shift) throws IOException {
            for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                // A fenced ex-leader's late write continues its own log; a batch whose base offset jumped there
                // is a damaged base offset (outside the CRC), judged by its neighbours instead.
                if (b.header().lastOffset() >= offsetLimit
                        && b.header().baseOffset() <= (nextOffset >= 0 ? nextOffset : floor)) {
                    limitAt = b.position();
                    return true;
                }
                long before = nextOffset >= 0 ? nextOffset : floor;
                String disagreement =
                        checkNeighbours ? neighbours.disagreement(b, b.header().baseOffset() == before) : null;
                if (disagreement != null) {
                    fieldStop = new CorruptBatchException(
                            CorruptBatchException.Reason.BAD_OFFSET_RANGE, b.position(), disagreement);
                    return false;
                }
                long position = b.position() - shift;
                jumped = b.header().baseOffset() > before;
                lastPosition = b.position();
                keptBeforeLast = keptPosition;
                keptPosition = b.position();
                lastBase = b.header().baseOffset();
                nextBeforeLast = before;
                entriesBeforeLast = entries.size();
                if (policy.due(position, lastEntry)) {
                    lastEntry = new IndexEntry(b.header().lastOffset(), (int) position);
                    entries.add(lastEntry);
                }
                nextOffset = b.header().nextOffset();
                batches++;
                if (visitor != null) {
                    visitor.visit(b);
                }
            }
            return false;
        }

        void undoLast() {
            while (entries.size() > entriesBeforeLast) {
                entries.remove(entries.size() - 1);
            }
            lastEntry = entries.isEmpty() ? null : entries.get(entries.size() - 1);
            nextOffset = nextBeforeLast;
            keptPosition = keptBeforeLast;
            batches--;
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
            for (HeaderCursor.Framing f = cursor.next();
                    f == HeaderCursor.Framing.BATCH || f == HeaderCursor.Framing.BAD_MAGIC;
                    f = cursor.next()) {
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
