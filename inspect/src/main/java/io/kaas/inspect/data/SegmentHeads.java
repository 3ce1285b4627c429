package io.kaas.inspect.data;

import io.kaas.inspect.IndexSeek;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.HeaderCursor;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * What a segment's batch headers say without a walk over all of them: where its log ends and its newest timestamp
 * (the headers from its last index entry on: Apache's and kaas's index point at a batch at most
 * {@code index.interval.bytes} before the end), and its oldest timestamp (its first batch).
 */
final class SegmentHeads {
    private SegmentHeads() {}

    /**
     * The end of a segment: {@code nextOffset} of its last whole batch (its base offset when it holds none) and the
     * largest max timestamp among the batches read (-1 when none).
     */
    record Tail(long nextOffset, long newestTimestamp, boolean empty) {}

    static Tail tail(SegmentFile s) {
        try (FileChannel ch = FileChannel.open(s.log(), StandardOpenOption.READ)) {
            long size = ch.size();
            long from = IndexSeek.position(s.index(), s.baseOffset(), Long.MAX_VALUE - 1, size);
            Tail t = walk(ch, from, size, s.baseOffset());
            if (t.empty() && from > 0) {
                t = walk(ch, 0, size, s.baseOffset()); // the index named no batch start: read every head
            }
            return t;
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, s.log() + ": cannot read: " + IoFailure.describe(e), e);
        }
    }

    private static Tail walk(FileChannel ch, long from, long size, long base) throws IOException {
        HeaderCursor cursor = new HeaderCursor(ch, from, size);
        long next = base;
        long newest = RecordBatchHeader.NO_TIMESTAMP;
        boolean any = false;
        while (cursor.next() == HeaderCursor.Framing.BATCH) {
            any = true;
            next = cursor.nextOffset();
            newest = Math.max(newest, cursor.maxTimestamp());
        }
        return new Tail(next, newest, !any);
    }

    /** The timestamp of the first record of the segment's first batch; -1 when it has none. */
    static long oldestTimestamp(SegmentFile s) {
        try (FileChannel ch = FileChannel.open(s.log(), StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, 0, ch.size());
            if (cursor.next() != HeaderCursor.Framing.BATCH) {
                return RecordBatchHeader.NO_TIMESTAMP;
            }
            RecordBatchHeader h = cursor.header();
            return h.isLogAppendTime() ? h.maxTimestamp() : h.baseTimestamp();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, s.log() + ": cannot read: " + IoFailure.describe(e), e);
        }
    }
}
