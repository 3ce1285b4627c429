package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The analysis's walks of each segment, read-only: load and sanity-check its index, scan the active segment
 * from the recovery checkpoint when it may be trusted (else from byte 0), scan a closed segment whole when its
 * index is not sane, and record in its {@link SegmentPlan} where the valid part ends and what lies after it
 * ({@link SegmentLogScan}). What the fields outside the CRC are checked against (the checkpoint and epochs as
 * found, the durable log start) is fixed at construction. One instance per scan, one thread.
 */
final class SegmentScans {
    private final Path dir;
    private final RecoveryOptions options;
    private final RecoveryScan.TailVisitor visitor;
    private final List<String> actions;
    private final List<ScanCut> cuts;
    private final RecoveryCheckpoint checkpointFound;
    private final LeaderEpochCheckpoint epochsFound;
    /** The highest log start a sound durable copy records (where an empty log resumes), -1 when none does. */
    private final long durableLogStart;

    long bytesScanned;
    int segmentsScanned;
    /** Bytes the fence cuts (a fenced ex-leader's late writes). */
    long bytesTruncated;

    SegmentScans(
            Path dir,
            RecoveryOptions options,
            RecoveryScan.TailVisitor visitor,
            List<String> actions,
            List<ScanCut> cuts,
            RecoveryCheckpoint checkpointFound,
            LeaderEpochCheckpoint epochsFound,
            long durableLogStart) {
        this.dir = dir;
        this.options = options;
        this.visitor = visitor;
        this.actions = actions;
        this.cuts = cuts;
        this.checkpointFound = checkpointFound;
        this.epochsFound = epochsFound;
        this.durableLogStart = durableLogStart;
    }

    void loadIndex(SegmentPlan p) throws IOException {
        try {
            p.existingEntries = IndexFileFormat.readAll(p.index, p.name.baseOffset());
        } catch (NoSuchFileException e) {
            p.existingEntries = null;
            p.rebuildIndex = true;
            return;
        }
        Optional<String> problem = IndexFileFormat.sanityCheck(p.index, p.existingEntries, p.size, p.name.baseOffset());
        p.partialIndexEntry = Files.size(p.index) % IndexFileFormat.ENTRY_SIZE != 0;
        if (problem.isPresent() || p.partialIndexEntry) {
            p.rebuildIndex = true;
            actions.add(problem.orElse(p.index + ": size is not a multiple of 8") + "; rebuilding");
        }
    }

    /**
     * A closed segment's index names an offset at or past the next segment's base: no log can be so, so the index is
     * not sane and the segment is scanned (the log, not a derivable index, is what overlap damage is judged on).
     */
    /** Whether the index's last entry is past the segment's next one: a damaged hint, so the segment is scanned. */
    static boolean indexReachesNext(SegmentPlan p, SegmentPlan next) {
        IndexEntry[] entries = p.existingEntries;
        return entries != null && entries.length > 0 && entries[entries.length - 1].offset() >= next.name.baseOffset();
    }

    void analyseActive(SegmentPlan p, RecoveryCheckpoint cp) throws IOException {
        long start = 0;
        long startOffset = p.name.baseOffset();
        List<IndexEntry> kept = new ArrayList<>();
        String disagreement = cp == null || cp.segmentBase() != p.name.baseOffset()
                ? null
                : CheckpointHint.disagreement(cp, p.log, p.size, durableLogStart);
        if (disagreement != null) {
            // A derivable hint that disagrees with the log must never decide where it ends: scanned whole, rewritten.
            actions.add(dir.resolve(RecoveryCheckpoint.FILE_NAME) + ": " + disagreement
                    + "; the active segment is scanned" + " from byte 0 and the checkpoint rewritten");
        }
        if (disagreement == null
                && options.useCheckpoint()
                && cp != null
                && !p.rebuildIndex
                && p.offsetLimit == Long.MAX_VALUE
                && cp.segmentBase() == p.name.baseOffset()
                && cp.bytePos() >= 0
                && cp.bytePos() <= p.size
                && cp.highWatermark() >= p.name.baseOffset()) {
            start = cp.bytePos();
            startOffset = cp.highWatermark();
            for (IndexEntry e : p.existingEntries) {
                if (e.position() < start) {
                    kept.add(e);
                }
            }
            if (start > 0) {
                p.nextOffset = startOffset;
            }
        }
        scan(p, start, startOffset, kept, true);
        if (start > 0 && p.stop != null && p.validEnd == start) {
            // The first batch at the checkpoint is bad: a torn write just past it, or a checkpoint that disagrees
            // with the log (not a batch boundary, the wrong offset). A derivable hint must never cut valid
            // batches, so the segment is scanned whole, as without a checkpoint (same end for a real torn tail).
            p.nextOffset = -1;
            scanWhole(p, true);
            if (p.validEnd != start) {
                actions.add(String.format(
                        "%s: bytePos %d (offset %d) disagrees with the log; the active segment was scanned"
                                + " from byte 0 and the checkpoint is rewritten",
                        dir.resolve(RecoveryCheckpoint.FILE_NAME), start, startOffset));
            }
        }
    }

    void scanWhole(SegmentPlan p, boolean visit) throws IOException {
        scan(p, 0, p.name.baseOffset(), new ArrayList<>(), visit);
    }

    private void scan(SegmentPlan p, long start, long startOffset, List<IndexEntry> entries, boolean visit)
            throws IOException {
        segmentsScanned += start < p.size ? 1 : 0;
        // Only the active segment (the one scan that visits): a closed segment the checkpoint still names
        // may have been cleaned since, moving its batches.
        RecoveryCheckpoint cp = checkpointFound;
        // A checkpoint at the end of the file naming the durable log start is where a purge that outran
        // unsynced data resumed the log (see execute): it says nothing of the batch before it.
        boolean resumedAtLogStart = cp != null && cp.bytePos() == p.size && cp.highWatermark() == durableLogStart;
        boolean landmark = visit
                && cp != null
                && cp.segmentBase() == p.name.baseOffset()
                && cp.bytePos() > start
                && cp.bytePos() <= p.size
                && !resumedAtLogStart;
        BatchNeighbours neighbours =
                new BatchNeighbours(landmark ? cp.bytePos() : -1, landmark ? cp.highWatermark() : -1, epochsFound);
        SegmentLogScan.Result r = SegmentLogScan.scan(
                p.log,
                start,
                p.size,
                startOffset,
                p.name.baseOffset(),
                options.indexPolicy(),
                entries,
                visit ? visitor : null,
                p.offsetLimit,
                neighbours);
        // The valid batches reach exactly where the next epoch began: whatever follows (whole batches, a
        // torn one, zeros and then batches where the file was cut under a stopped writer) is late writes.
        long reached = r.nextOffset() >= 0 ? r.nextOffset() : startOffset;
        // Not where a CRC-valid batch past the log lies after the stop: no writer of this segment wrote it.
        boolean fenceCut = p.offsetLimit != Long.MAX_VALUE
                && r.validEnd() < p.size
                && (r.stop() == null || (reached == p.offsetLimit && r.pastTheLog() == null));
        if (fenceCut) {
            r = new SegmentLogScan.Result(r.validEnd(), r.nextOffset(), null, false, false, r.bytesRead());
            bytesTruncated += p.size - r.validEnd();
            cuts.add(new ScanCut(
                    p.log, r.validEnd(), p.size, "written by a fenced ex-leader after a later epoch began", false));
            actions.add(String.format(
                    "%s: truncated %d bytes at byte %d: written by epoch %d at or past offset %d,"
                            + " where a later leader epoch began (a fenced ex-leader's late writes)",
                    p.log, p.size - r.validEnd(), r.validEnd(), p.name.epoch(), p.offsetLimit));
        }
        if (r.nextOffset() >= 0) {
            p.nextOffset = r.nextOffset();
        }
        p.validEnd = r.validEnd();
        p.stop = r.stop();
        p.zeroTail = r.zeroTail();
        p.damaged = r.damaged();
        p.pastTheLog = r.pastTheLog();
        p.bad = r.bad();
        p.salvageNext = r.salvageNext();
        p.salvageEntries = r.salvageEntries();
        p.scanned = r.bytesRead();
        bytesScanned += r.bytesRead();
        p.entries = entries;
    }
}
