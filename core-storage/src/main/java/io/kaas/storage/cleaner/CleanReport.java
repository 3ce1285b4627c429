package io.kaas.storage.cleaner;

import java.nio.file.Path;

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
        long bytesAfter) {
    static CleanReport nothing(Path dir, long firstDirtyOffset) {
        return new CleanReport(dir, firstDirtyOffset, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    public long bytesRemoved() {
        return bytesBefore - bytesAfter;
    }
}
