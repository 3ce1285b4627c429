package io.kaas.storage.cleaner;

import io.kaas.storage.format.CleanerCheckpoint;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one pass did (or, dry, would do) to one partition.
 *
 * @param dir               the partition directory
 * @param firstDirtyOffset  where the pass started mapping keys
 * @param endOffset         the cleaned range's end: the next pass starts mapping here (-1: nothing cleanable)
 * @param segmentsCleaned   segments read and rewritten
 * @param segmentsAfter     segments they became (grouped up to segment.bytes)
 * @param keysMapped        distinct keys in the offset map (the dirty range's keys, up to what the buffer holds)
 * @param recordsRead       records in the cleaned segments
 * @param recordsRemoved    of which removed, in all; the next five say why
 * @param supersededRemoved a later record has the same key
 * @param keysRemoved       tombstones past their delete horizon: the key is gone from the log
 * @param abortedRemoved    records of aborted transactions
 * @param markersRemoved    transaction markers no reader needs any more
 * @param unkeyedRemoved    records without a key (a compacted topic cannot keep them)
 * @param bytesBefore       bytes of the cleaned segments before
 * @param bytesAfter        and after
 * @param groups            the segments each cleaned segment is made of, oldest first: a group is rewritten under
 *                          its first segment's name, the others' files removed (empty: nothing cleanable)
 */
public record CleanReport(
        Path dir,
        long firstDirtyOffset,
        long endOffset,
        int segmentsCleaned,
        int segmentsAfter,
        long keysMapped,
        long recordsRead,
        long recordsRemoved,
        long supersededRemoved,
        long keysRemoved,
        long abortedRemoved,
        long markersRemoved,
        long unkeyedRemoved,
        long bytesBefore,
        long bytesAfter,
        List<List<SegmentName>> groups) {
    public CleanReport {
        groups = groups.stream().map(List::copyOf).toList();
    }

    static CleanReport nothing(Path dir, long firstDirtyOffset) {
        return new CleanReport(dir, firstDirtyOffset, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    /** The files the pass replaces (did, or would): each group's first segment's log and index, rewritten. */
    public List<Path> replacedFiles() {
        List<Path> out = new ArrayList<>();
        for (List<SegmentName> g : groups) {
            out.add(dir.resolve(g.get(0).logFileName()));
            out.add(dir.resolve(g.get(0).indexFileName()));
        }
        return out;
    }

    /** The files the pass removes: the log and index of every other segment of a group (merged into its first). */
    public List<Path> removedFiles() {
        List<Path> out = new ArrayList<>();
        for (List<SegmentName> g : groups) {
            for (SegmentName s : g.subList(1, g.size())) {
                out.add(dir.resolve(s.logFileName()));
                out.add(dir.resolve(s.indexFileName()));
            }
        }
        return out;
    }

    /** The files the pass writes besides the segments: cleaner-checkpoint.json, when it cleaned anything. */
    public List<Path> writtenFiles() {
        return endOffset < 0 ? List.of() : List.of(dir.resolve(CleanerCheckpoint.FILE_NAME));
    }

    public long bytesRemoved() {
        return bytesBefore - bytesAfter;
    }
}
