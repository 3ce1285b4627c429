package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import java.io.IOException;
import java.util.Arrays;

/**
 * An in-memory, sparse time index of one segment, for ListOffsets by timestamp: where a walk over batch
 * headers may start so that every batch it skips has a max timestamp below the target. Built lazily from
 * the batch headers by the first lookup, and extended by later ones over what was appended since.
 *
 * <p>Not a {@code .timeindex} file: a persisted index would keep one more file open per segment (or reopen
 * it per lookup), and the broker keeps a handle budget; this costs one header walk per segment after a
 * restart, on the first timestamp lookup that reaches it, and at most {@value #SPACING_BYTES} bytes of
 * headers per lookup after that. Memory: 12 bytes per {@value #SPACING_BYTES} bytes of log (about 200 KB
 * for a full 1 GiB segment). Apache's time index holds the same information (the largest timestamp so far,
 * by position).
 */
public final class SegmentTimeIndex {
    /** One entry per this many bytes of log. */
    static final int SPACING_BYTES = 64 * 1024;

    private int[] positions = new int[8];
    /** {@code maxBefore[i]}: the largest batch max timestamp of the batches before {@code positions[i]}. */
    private long[] maxBefore = new long[8];

    private int count;
    /** Headers were walked up to here (a batch start). */
    private long indexedTo;

    private long maxSoFar = RecordBatchHeader.NO_TIMESTAMP;

    /**
     * A batch start in {@code segment} before which no batch has a max timestamp ≥ {@code timestamp}
     * (0 when there is none better). Walks the headers appended since the last call first.
     */
    public synchronized long startFor(Segment segment, long timestamp) throws IOException {
        extend(segment, segment.size());
        int lo = 0;
        int hi = count - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (maxBefore[mid] < timestamp) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? 0 : positions[found];
    }

    private void extend(Segment segment, long end) throws IOException {
        while (indexedTo < end) {
            if (count == 0 || indexedTo - positions[count - 1] >= SPACING_BYTES) {
                add((int) indexedTo, maxSoFar);
            }
            RecordBatchHeader h = segment.headerAt(indexedTo);
            maxSoFar = Math.max(maxSoFar, h.maxTimestamp());
            indexedTo += h.sizeInBytes();
        }
    }

    private void add(int position, long max) {
        if (count == positions.length) {
            positions = Arrays.copyOf(positions, count * 2);
            maxBefore = Arrays.copyOf(maxBefore, count * 2);
        }
        positions[count] = position;
        maxBefore[count] = max;
        count++;
    }

    /** Entries held (tests). */
    synchronized int entries() {
        return count;
    }
}
