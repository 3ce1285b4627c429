package io.kaas.inspect.verify;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.Quarantine;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.ScannedBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Walks one log file with core-storage's {@link BatchScanner} (CRC-32C of every batch: the stored
 * bytes must be exactly the client's) and checks offsets: increasing, contiguous (unless the topic is
 * compacted), the first at the file name's base offset. After a bad batch the scanner can step over
 * ({@link BatchScanner#canStepOver}) it walks on, so one run names every damaged batch, not just the first.
 */
final class SegmentCheck {
    private final VerifyReport report;
    private final boolean compacted;
    private final AnalysisFindings analysis;
    /** Where a salvage's quarantine notes are looked up; null for a file outside a partition directory. */
    private final Path partitionDir;

    SegmentCheck(VerifyReport report, boolean compacted) {
        this(report, compacted, AnalysisFindings.none(), null);
    }

    /**
     * @param analysis     the partition's damage verdict: bytes it named are not named again, offsets of files it found damaged not judged
     * @param partitionDir the partition directory, or null
     */
    SegmentCheck(VerifyReport report, boolean compacted, AnalysisFindings analysis, Path partitionDir) {
        this.report = report;
        this.compacted = compacted;
        this.analysis = analysis;
        this.partitionDir = partitionDir;
    }

    /** A gap {@code kaas recover --force} left on purpose (it salvaged damaged batches there) is not a problem. */
    private boolean salvaged(long from, long to) {
        return partitionDir != null && Quarantine.salvagedGap(partitionDir, from, to);
    }

    /** What the walk found; {@code nextOffset} is -1 when the log holds no valid batch. */
    record Result(BatchMap batches, long firstOffset, long nextOffset, long size) {}

    /** @param expectedNext the offset the previous segment ended at, or -1 for the first segment */
    Result check(SegmentFile segment, long expectedNext) throws IOException {
        return check(segment, expectedNext, -1, () -> false);
    }

    /**
     * @param limit            read no byte at or past this (the size captured when verify started), -1 for the whole file
     * @param appendInProgress asked when the walk ends in bytes that do not frame a whole batch: true when that is a
     *                         writer's append under way (the active segment of a partition a broker holds), not a torn tail
     */
    Result check(
            SegmentFile segment, long expectedNext, long limit, java.util.function.BooleanSupplier appendInProgress)
            throws IOException {
        Path log = segment.log();
        BatchMap map = new BatchMap();
        long first = -1;
        long next = expectedNext;
        long validNext = -1;
        boolean judgeOffsets = !analysis.offsetsJudged(log);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = limit >= 0 ? Math.min(limit, ch.size()) : ch.size();
            BatchScanner scanner = new BatchScanner(ch, log, 0, size, Long.MIN_VALUE);
            while (true) {
                for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                    RecordBatchHeader h = b.header();
                    if (first < 0) {
                        first = h.baseOffset();
                        if (judgeOffsets) {
                            checkName(segment, h, expectedNext);
                        }
                    } else if (judgeOffsets) {
                        checkContiguous(log, b.position(), h, next);
                    }
                    map.add(b.position(), h.baseOffset(), h.lastOffset(), b.nextPosition());
                    next = h.nextOffset();
                    validNext = next;
                }
                CorruptBatchException stop = scanner.stopReason();
                if (stop == null) {
                    break;
                }
                long pos = scanner.position();
                ScannedBatch damaged = scanner.stepOver();
                if (damaged == null) {
                    if (analysis.named(log, pos) || appendInProgress.getAsBoolean()) {
                        break;
                    }
                    boolean zeros = scanner.tailIsZeros();
                    report.problem(
                            log,
                            pos,
                            (size - pos) + " invalid bytes at the end" + (zeros ? " (zero-filled torn tail)" : "")
                                    + ": " + stop.getMessage());
                    break;
                }
                // In a file the analysis found damaged, offsets going back are the damaged batch's neighbours.
                boolean offsetsOnly = stop.reason() == CorruptBatchException.Reason.BAD_OFFSET_RANGE;
                if (!analysis.named(log, pos) && (judgeOffsets || !offsetsOnly)) {
                    report.problem(
                            log,
                            pos,
                            stop.getMessage()
                                    + (stop.reason() == CorruptBatchException.Reason.BAD_CRC
                                            ? " (the stored bytes are not the client's)"
                                            : ""));
                }
                // kept in the map (offsets unverified) so index entries pointing at it are not reported twice
                map.add(pos, damaged.header().baseOffset(), damaged.header().lastOffset(), damaged.nextPosition());
                if (first < 0) {
                    first = damaged.header()
                            .baseOffset(); // the file does start here; its name is not judged on unverified bytes
                }
                next = -1; // offsets after a damaged batch cannot be judged against it
            }
            report.countSegment(map.count(), size);
            return new Result(map, first, validNext, size);
        }
    }

    private void checkName(SegmentFile segment, RecordBatchHeader h, long expectedNext) {
        long base = segment.baseOffset();
        if (h.baseOffset() < base) {
            report.problem(
                    segment.log(),
                    0,
                    "first batch starts at offset " + h.baseOffset() + ", below the base offset " + base
                            + " in the file name");
        } else if (h.baseOffset() > base && !compacted && !salvaged(base, h.baseOffset())) {
            report.problem(
                    segment.log(),
                    0,
                    "first batch starts at offset " + h.baseOffset() + ", but the file name says " + base);
        }
        checkContiguous(segment.log(), 0, h, expectedNext);
    }

    private void checkContiguous(Path log, long position, RecordBatchHeader h, long expected) {
        if (expected < 0) {
            return;
        }
        if (h.baseOffset() < expected) {
            report.problem(
                    log,
                    position,
                    "batch base offset " + h.baseOffset() + " goes back below " + expected
                            + ", the offset after the previous batch");
        } else if (h.baseOffset() > expected && !compacted && !salvaged(expected, h.baseOffset())) {
            report.problem(log, position, "offset gap: expected " + expected + ", batch starts at " + h.baseOffset());
        }
    }
}
