package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.StorageException;
import java.io.IOException;

/**
 * Finds batches in one segment's log by walking batch heads ({@link HeaderCursor}) from the index's nearest
 * entry: the batch holding an offset, the first batch reaching a timestamp, and the run of whole batches a
 * read returns. Never reads a CRC or a record (the consumer checks CRCs); bytes that do not frame a batch
 * where the walk needs one are refused as damage naming file and byte.
 *
 * <p>Lock-free, from any thread: it reads only below the log's published size and the index's published
 * entries, so a concurrent append is either wholly seen or not at all.
 */
final class BatchLocator {
    private final SegmentLogFile log;
    private final SparseIndex index;

    BatchLocator(SegmentLogFile log, SparseIndex index) {
        this.log = log;
        this.index = index;
    }

    /** See {@link Segment#positionOf}. */
    long positionOf(long offset, long limit) throws IOException {
        long from = index.lookup(offset).position();
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), from, limit);
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                if (batches.lastOffset() >= offset) {
                    return batches.position();
                }
            }
            throwIfBadFraming(batches);
            return -1;
        }
    }

    /** Where {@link #positionOf} starts walking for {@code offset}: the index's nearest entry at or below it. */
    long walkStartFor(long offset) {
        return index.lookup(offset).position();
    }

    /**
     * A walk over batch heads that stopped before the end of its range met bytes that do not frame a
     * batch: damage in bytes the open trusted (a closed segment is not scanned at open), refused as a
     * corrupt batch naming file and byte (the broker answers CORRUPT_MESSAGE) rather than read as data.
     * Only the length fields the walk reads anyway are checked: a read never checks CRCs (the consumer does).
     */
    private void throwIfBadFraming(HeaderCursor batches) {
        HeaderCursor.Framing f = batches.framing();
        if (f != HeaderCursor.Framing.BATCH && f != HeaderCursor.Framing.END) {
            throw new StorageException(
                    StorageException.Kind.CORRUPT_BATCH,
                    log.path() + ":" + batches.position()
                            + ": the bytes there do not frame a batch (" + f + ", "
                            + (batches.end() - batches.position())
                            + " bytes to the end of the readable range): run `kaas verify` on the partition");
        }
    }

    /** See {@link Segment#firstBatchWithMaxTimestampAtLeast}. */
    RecordBatchHeader firstBatchWithMaxTimestampAtLeast(long timestamp, long minOffset, long fromPosition)
            throws IOException {
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), fromPosition, log.size());
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                if (batches.maxTimestamp() >= timestamp && batches.nextOffset() > minOffset) {
                    return batches.header();
                }
            }
            return null;
        }
    }

    /** See {@link Segment#wholeBatchesEnd}. */
    long wholeBatchesEnd(long pos, long limit, int maxBytes, long cap) throws IOException {
        // The index's entries are batch starts: the batches up to the last one within reach (bytes and
        // cap) are taken without reading their headers, one pread each, and the walk goes on from there.
        // Same answer as walking from pos (appends are validated, so the framing in between holds).
        IndexEntry within = index.lastBatchStartWithin(pos, Math.min(limit, pos + (long) maxBytes), cap);
        long from = within == null ? pos : within.position();
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), from, limit);
            long end = from;
            long expected = -1;
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                long next = batches.position() + batches.sizeInBytes();
                if (batches.baseOffset() >= cap || (end > pos && next - pos > maxBytes)) {
                    return end;
                }
                if (batches.baseOffset() < expected) {
                    // A base offset (outside the CRC) going back below the previous batch's end is damage the open did
                    // not scan: the read ends before it; the next read from the offset after passes it by.
                    return end;
                }
                expected = batches.nextOffset();
                end = next;
            }
            if (end == pos) {
                throwIfBadFraming(batches); // nothing whole to return before the bad bytes: refuse, don't answer empty
            }
            return end;
        }
    }
}
