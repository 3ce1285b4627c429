package io.kaas.storage.recovery;

import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * {@code recovery-checkpoint.json} as a hint: it says where the fsynced part of the active segment ends, but it
 * is derivable, so one that cannot describe the log, or disagrees with it, is ignored (the segment is scanned
 * from byte 0) and rewritten, never trusted to cut a batch. Recovery asks {@link #plausibleOrNull} and
 * {@link #disagreement}; verify asks {@link #disagreement} (one rule, both tools). Stateless; reads only.
 */
public final class CheckpointHint {
    private CheckpointHint() {}

    /**
     * Why {@code recovery-checkpoint.json} disagrees with the active segment it names, or null: its byte must lie
     * in the segment's valid part, on a batch boundary, with its offset the one after that boundary. Recovery
     * then scans the segment whole and rewrites it; verify reports it (one rule, both tools).
     *
     * @param validEnd            where the segment's valid part ends
     * @param nextOffsetEndingAt  the offset after the batch ending at a byte, {@link Long#MIN_VALUE} when none ends there
     * @param logEnd              the offset after the log's last valid batch
     * @param resumeOffset        where the log resumes at its end: the log end, or a durable log start past it
     */
    public static String disagreement(
            RecoveryCheckpoint c, long validEnd, LongUnaryOperator nextOffsetEndingAt, long logEnd, long resumeOffset) {
        if (c.bytePos() > validEnd) {
            return "bytePos " + c.bytePos() + " is past the valid end " + validEnd + " of segment " + c.segmentBase();
        }
        long expected = c.bytePos() == 0 ? c.segmentBase() : nextOffsetEndingAt.applyAsLong(c.bytePos());
        if (expected == Long.MIN_VALUE || c.bytePos() < 0) {
            return "bytePos " + c.bytePos() + " is not a batch boundary of segment " + c.segmentBase();
        }
        // At the log's end recovery writes the offset the log resumes at: the durable log start when that lies past the
        // log.
        boolean resumes = expected == logEnd && c.highWatermark() == resumeOffset;
        if (c.bytePos() > 0 && c.highWatermark() != expected && !resumes) {
            return "highWatermark " + c.highWatermark() + " disagrees with the log: the batch ending at byte "
                    + c.bytePos() + " is followed by offset " + expected;
        }
        return null;
    }

    /**
     * {@link #disagreement} for recovery: the segment's batches found by framing ({@code log} is the
     * segment it names); {@code durableLogStart} the log start its durable copies record (-1: none).
     */
    static String disagreement(RecoveryCheckpoint c, Path log, long size, long durableLogStart) throws IOException {
        java.util.Map<Long, Long> nextByEnd = new java.util.HashMap<>();
        long end = 0;
        long logEnd = c.segmentBase();
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, 0, size);
            for (HeaderCursor.Framing f = cursor.next(); f == HeaderCursor.Framing.BATCH; f = cursor.next()) {
                end = cursor.position() + cursor.sizeInBytes();
                logEnd = cursor.nextOffset();
                nextByEnd.put(end, logEnd);
            }
        }
        return disagreement(
                c, end, pos -> nextByEnd.getOrDefault(pos, Long.MIN_VALUE), logEnd, Math.max(logEnd, durableLogStart));
    }

    /**
     * The checkpoint, or null when what it says of the active segment cannot be true of any log (a byte past
     * the file's end, an offset below the segment's base, a log end other than the base at byte 0, or none at
     * a later byte): a damaged derivable hint is no evidence of what was fsynced. Ignored, it costs a scan of the
     * active segment from byte 0, and is rewritten after it.
     */
    static RecoveryCheckpoint plausibleOrNull(
            Path dir, RecoveryCheckpoint cp, List<SegmentPlan> plans, List<String> actions) {
        if (cp == null || plans.isEmpty()) {
            return cp;
        }
        SegmentPlan active = plans.get(plans.size() - 1);
        long base = active.name.baseOffset();
        if (cp.segmentBase() != base) {
            return cp; // names another segment: not used as the active segment's start, nor as a landmark
        }
        boolean plausible = cp.bytePos() >= 0
                && cp.bytePos() <= active.size
                && (cp.bytePos() == 0 ? cp.highWatermark() == base : cp.highWatermark() > base);
        if (plausible && !contradictedByTheLog(active, cp)) {
            return cp;
        }
        actions.add(String.format(
                "%s: bytePos %d, offset %d cannot describe %s (%d bytes, base offset %d); ignored, the"
                        + " active segment was scanned from byte 0 and the checkpoint is rewritten",
                dir.resolve(RecoveryCheckpoint.FILE_NAME),
                cp.bytePos(),
                cp.highWatermark(),
                active.log.getFileName(),
                active.size,
                base));
        return null;
    }

    /**
     * The batch ending at the checkpoint's byte continues the one before it (its base offset, outside the CRC, is
     * backed by its neighbour) but ends at another offset than the checkpoint says: the checkpoint is the one
     * wrong. Walks batch heads only, from the index's last entry at or below that byte (from byte 0 if that
     * fails). Where the log does not back the batch (a jump, the segment's first batch), the checkpoint stays
     * the evidence against it.
     */
    private static boolean contradictedByTheLog(SegmentPlan active, RecoveryCheckpoint cp) {
        if (cp.bytePos() == 0) {
            return false;
        }
        long from = 0;
        try {
            for (IndexEntry e : IndexFileFormat.readAll(active.index, active.name.baseOffset())) {
                if (e.position() < cp.bytePos()) {
                    from = Math.max(from, e.position());
                }
            }
        } catch (IOException | RuntimeException e) {
            from = 0;
        }
        try (FileChannel ch = FileChannel.open(active.log, StandardOpenOption.READ)) {
            for (long start : from > 0 ? new long[] {from, 0} : new long[] {0}) {
                io.kaas.storage.segment.HeaderCursor batches =
                        new io.kaas.storage.segment.HeaderCursor(ch, start, cp.bytePos());
                long before = -1;
                long lastBase = -1;
                long lastNext = -1;
                while (batches.next() == io.kaas.storage.segment.HeaderCursor.Framing.BATCH) {
                    before = lastNext;
                    lastBase = batches.baseOffset();
                    lastNext = batches.nextOffset();
                }
                boolean neighbourSeen = before >= 0 || start == 0;
                if (batches.framing() == io.kaas.storage.segment.HeaderCursor.Framing.END
                        && lastNext >= 0
                        && neighbourSeen) {
                    return lastNext != cp.highWatermark() && before >= 0 && lastBase == before;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }
}
