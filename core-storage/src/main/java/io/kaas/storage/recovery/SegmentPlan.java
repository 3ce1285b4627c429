package io.kaas.storage.recovery;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Per-segment findings of a {@link RecoveryScan}'s analyse pass, and what its apply pass does to the segment. */
final class SegmentPlan {
    final SegmentName name;
    final Path log;
    final Path index;
    final long size;
    IndexEntry[] existingEntries;
    List<IndexEntry> entries;
    long validEnd;
    long nextOffset = -1;
    boolean rebuildIndex;
    /** The index file ends in a partial entry: rewrite it even if its whole entries are right. */
    boolean partialIndexEntry;

    CorruptBatchException stop;
    /** The bytes at the stop are damage (durable, or intact data continues after them), not a torn tail. */
    boolean damaged;
    /** Why the stop is damage: the evidence, for the report. */
    String evidence;
    /** The scan's evidence when no batch continues the log ({@link SegmentLogScan.Result#pastTheLog}), or null. */
    String pastTheLog;

    boolean zeroTail;
    /** Offsets at or past this belong to a later leader epoch ({@link LeaderEpochCheckpoint#endOf}). */
    long offsetLimit = Long.MAX_VALUE;

    long scanned;
    /** After a stop: the byte ranges a salvage removes, the offset after what it keeps, and its index. */
    List<SegmentLogScan.BadRange> bad = List.of();

    long salvageNext = -1;
    List<IndexEntry> salvageEntries = List.of();
    /** Apply rewrites the log without {@link #bad} (a salvage). */
    boolean rewrite;
    /** After a salvage: bytes before this kept their positions, and the offset there (a checkpoint may not claim more). */
    long unmovedEnd = -1;

    long offsetAtUnmovedEnd = -1;
    /** Apply creates this segment, empty (the log resumes at its base offset past a missing tail). */
    boolean create;

    SegmentPlan(Path dir, SegmentName name, long size) {
        this.name = name;
        this.log = dir.resolve(name.logFileName());
        this.index = dir.resolve(name.indexFileName());
        this.size = size;
        this.validEnd = size;
    }

    /** Offset after the last batch a scan accepted, counting what lies past a damaged range. */
    long reachedOffset() {
        return Math.max(nextOffset, salvageNext);
    }

    /** Whether apply rewrites the index: missing, ending in a partial entry, or other entries than the scan's. */
    boolean indexDiffers() {
        // A partial trailing entry left in place would later be cut and overwritten without an fsync,
        // and a power cut can then mix its old bytes with the new entry's into a wrong entry.
        return existingEntries == null || partialIndexEntry || !entries.equals(Arrays.asList(existingEntries));
    }

    long badBytes() {
        return bad.stream().mapToLong(SegmentLogScan.BadRange::length).sum();
    }
}
