package io.kaas.storage.recovery;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.IndexEntry;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Offsets missing from a log whose topic is not compacted: lost durable data, so damage. Closed segments
 * were fsynced whole when they rolled, and manifest.json's high watermark is written only once the log
 * below it was fsynced; so offsets missing between two segments, or a log ending below that high
 * watermark, are acknowledged records gone (a deleted or cut segment file), never a torn tail.
 * Not gaps: offsets below the durable log start (DeleteRecords, retention), gaps a compacted topic's
 * cleaner leaves, gaps a salvage recorded in its quarantine note ({@link Quarantine#salvagedGap}),
 * and a high watermark a fenced ex-leader wrote past where the next leader epoch began.
 */
public final class OffsetGaps {
    /**
     * Offsets {@code [from, to)} are missing after segment {@code follows}; {@code file} is named at byte 0 (the file
     * after the gap, or the manifest); {@code what} is null for a gap a salvage already recorded.
     */
    record Gap(Path file, SegmentPlan follows, long from, long to, String what) {
        String line() {
            return file + ":0: " + what;
        }
    }

    private OffsetGaps() {}

    /** The one rule for whether offset gaps are normal in a partition: its topic is compacted (cleanup.policy). */
    public static boolean compactionMayLeaveGaps(Path partitionDir) {
        // No .config.json (an Apache log dir, an older data dir, a lost file): the policy is unknown, and a
        // compacted topic's gaps are no damage; a damaged one is damage of its own (TopicConfigFile.damageOf).
        Path topicDir = partitionDir.toAbsolutePath().getParent();
        try {
            return topicDir == null
                    || TopicConfigFile.readTopicDir(topicDir)
                            .map(TopicConfig::compacted)
                            .orElse(true);
        } catch (StorageException e) {
            return true;
        }
    }

    /** Offsets missing between consecutive segments (each previous one without a stop of its own). */
    static List<Gap> betweenSegments(Path dir, List<SegmentPlan> plans, long durableLogStart) throws IOException {
        List<Gap> gaps = new ArrayList<>();
        if (compactionMayLeaveGaps(dir)) {
            return gaps;
        }
        for (int i = 0; i + 1 < plans.size(); i++) {
            SegmentPlan prev = plans.get(i);
            SegmentPlan next = plans.get(i + 1);
            if (prev.stop != null) {
                continue; // the damage verdict on that stop covers what follows it
            }
            long prevEnd = logEnd(prev);
            long from = Math.max(prevEnd, durableLogStart);
            long to = next.name.baseOffset();
            if (to > from && !Quarantine.salvagedGap(dir, from, to)) {
                gaps.add(new Gap(
                        next.log,
                        prev,
                        from,
                        to,
                        String.format(
                                "offsets %d..%d are missing: %s ends at offset %d and this"
                                        + " segment starts at %d (a closed segment was fsynced whole when it rolled: acknowledged records lost,"
                                        + " a segment file deleted or cut); --force accepts the gap (recorded in the quarantine note)",
                                from, to - 1, prev.log.getFileName(), prevEnd - 1, to)));
            }
        }
        return gaps;
    }

    /**
     * A log ending at {@code logEnd}, below the high watermark the sound manifest recorded as fsynced, or null. A
     * high watermark equal to the log start may be a DeleteRecords target, never fsynced (the log resumes there).
     */
    static Gap missingTail(
            Path dir,
            Manifest manifest,
            long durableLogStart,
            SegmentPlan last,
            long logEnd,
            LeaderEpochCheckpoint epochs) {
        // Compaction too keeps the log end: the active segment is never cleaned, and its name keeps its base offset.
        if (manifest == null || last == null) {
            return null;
        }
        long durable = Math.min(manifest.highWatermark(), epochs.endOf(manifest.epoch()));
        if (durable <= durableLogStart || logEnd >= durable || logEnd < durableLogStart) {
            return null;
        }
        if (Quarantine.salvagedGap(dir, logEnd, durable)) {
            return new Gap(dir.resolve(Manifest.FILE_NAME), last, logEnd, durable, null);
        }
        return new Gap(
                dir.resolve(Manifest.FILE_NAME),
                last,
                logEnd,
                durable,
                String.format(
                        "highWatermark %d was fsynced, but the log"
                                + " ends at offset %d: offsets %d..%d are missing (acknowledged records lost: the last segment deleted or cut);"
                                + " --force resumes the log at %d (offsets are never handed out twice) and records the gap in the quarantine note",
                        durable, logEnd, logEnd, durable - 1, durable));
    }

    /**
     * The last batch of a closed segment whose base offset (outside the CRC) jumped past the batch before it and
     * reaches into the next segment: only the next segment's first offset can show it is wrong. Marks that batch
     * as the segment's stop (damage in a closed segment), so that it is named itself, not the next segment.
     */
    static void markJumpedLastBatches(List<SegmentPlan> plans) throws IOException {
        for (int i = 0; i + 1 < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            long nextBase = plans.get(i + 1).name.baseOffset();
            if (p.stop != null || logEnd(p) <= nextBase) {
                continue;
            }
            long lastPos = -1;
            long lastBase = -1;
            long lastNext = -1;
            long before = p.name.baseOffset();
            try (FileChannel ch = FileChannel.open(p.log, StandardOpenOption.READ)) {
                HeaderCursor cursor = new HeaderCursor(ch, 0, p.size);
                long running = p.name.baseOffset();
                for (HeaderCursor.Framing f = cursor.next(); f == HeaderCursor.Framing.BATCH; f = cursor.next()) {
                    before = running;
                    lastPos = cursor.position();
                    lastBase = cursor.baseOffset();
                    lastNext = cursor.nextOffset();
                    running = lastNext;
                }
            }
            if (lastPos < 0 || lastBase <= before || lastNext <= nextBase || before > nextBase) {
                continue; // not one jumped batch: the overlap check names it (a duplicate or misnamed segment)
            }
            String why = String.format(
                    "base offset %d (outside the CRC) disagrees with its neighbours: the batch before ends"
                            + " at offset %d, the next segment %s starts at %d",
                    lastBase, before - 1, plans.get(i + 1).log.getFileName(), nextBase);
            final long at = lastPos;
            p.stop = new CorruptBatchException(CorruptBatchException.Reason.BAD_OFFSET_RANGE, at, why);
            p.validEnd = at;
            p.nextOffset = before;
            p.zeroTail = false;
            p.bad = List.of(new SegmentLogScan.BadRange(at, p.size, why, before, nextBase));
            p.salvageNext = before;
            List<IndexEntry> kept = new ArrayList<>();
            for (IndexEntry e : p.entries) {
                if (e.position() < at) {
                    kept.add(e);
                }
            }
            p.entries = kept;
            p.salvageEntries = new ArrayList<>(kept);
        }
    }

    /** Offset after the segment's last batch (read from its last index entry on when it was not scanned); its base when empty. */
    static long logEnd(SegmentPlan p) throws IOException {
        long reached = p.reachedOffset();
        if (reached >= 0) {
            return reached;
        }
        long from = p.existingEntries != null && p.existingEntries.length > 0
                ? p.existingEntries[p.existingEntries.length - 1].position()
                : 0;
        long end = framedEnd(p, from);
        if (end < 0 && from > 0) {
            // The index is a hint, not evidence: an entry that frames no walk to the end of the file is
            // damaged (a derivable file); the log itself is walked from its start.
            end = framedEnd(p, 0);
        }
        return end >= 0 ? end : p.name.baseOffset();
    }

    /**
     * Whether a trusted closed segment's index ends on a batch that frames a walk to the end of the file. The
     * walk is the one {@link #logEnd} makes anyway (from the last entry: at most an index interval and a
     * batch); an entry that frames no such walk is a damaged index, so the open scans the segment and
     * rebuilds it instead of serving reads from a wrong position.
     */
    static boolean lastEntryFramesToEnd(SegmentPlan p) throws IOException {
        if (p.existingEntries == null || p.existingEntries.length == 0) {
            return true;
        }
        return framedEnd(p, p.existingEntries[p.existingEntries.length - 1].position()) >= 0;
    }

    /** The offset after the last batch of a framing walk from {@code from} that reaches the end of the file; -1 when it does not. */
    private static long framedEnd(SegmentPlan p, long from) throws IOException {
        long end = -1;
        long reachedPosition = from;
        try (FileChannel ch = FileChannel.open(p.log, StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, from, p.size);
            for (HeaderCursor.Framing f = cursor.next(); f == HeaderCursor.Framing.BATCH; f = cursor.next()) {
                end = cursor.nextOffset();
                reachedPosition = cursor.position() + cursor.sizeInBytes();
            }
        }
        return reachedPosition == p.size ? end : -1;
    }
}
