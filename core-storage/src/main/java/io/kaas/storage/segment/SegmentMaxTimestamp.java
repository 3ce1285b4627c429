package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.CachedFile;
import java.io.IOException;

/**
 * A segment's largest batch max timestamp and the base offset of its batch (retention's segment age,
 * ListOffsets' MAX_TIMESTAMP): noted batch by batch as the segment is appended to, or, for a segment opened
 * from disk, found by one walk over its batch heads the first time it is asked for.
 *
 * <p>{@link #note} is called by the segment's append (holds Partition.lock); the values are volatile and
 * read from any thread; the one walk synchronizes on this object.
 */
final class SegmentMaxTimestamp {
    private final SegmentLogFile log;
    private volatile long maxTimestamp = RecordBatchHeader.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestamp = -1;
    private volatile boolean known;

    /** @param known true for a new or empty segment (nothing to walk); false walks the log on first use */
    SegmentMaxTimestamp(SegmentLogFile log, boolean known) {
        this.log = log;
        this.known = known;
    }

    /** A batch just appended. Holds Partition.lock. */
    void note(RecordBatchHeader h) {
        if (known && h.maxTimestamp() > maxTimestamp) {
            maxTimestamp = h.maxTimestamp();
            offsetOfMaxTimestamp = h.baseOffset();
        }
    }

    long maxTimestamp() throws IOException {
        ensureKnown();
        return maxTimestamp;
    }

    long offsetOfMaxTimestamp() throws IOException {
        ensureKnown();
        return offsetOfMaxTimestamp;
    }

    private void ensureKnown() throws IOException {
        if (known) {
            return;
        }
        synchronized (this) {
            if (known) {
                return;
            }
            long max = RecordBatchHeader.NO_TIMESTAMP;
            long at = -1;
            try (CachedFile.Handle h = log.acquire()) {
                HeaderCursor batches = new HeaderCursor(h.channel(), 0, log.size());
                while (batches.next() == HeaderCursor.Framing.BATCH) {
                    if (batches.maxTimestamp() > max) {
                        max = batches.maxTimestamp();
                        at = batches.baseOffset();
                    }
                }
            }
            maxTimestamp = max;
            offsetOfMaxTimestamp = at;
            known = true;
        }
    }
}
