package io.kaas.inspect.data;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What read_committed leaves out of a partition, as the broker's read_committed Fetch does: the engine's own
 * transaction index ({@code txn-index.snapshot}, {@link TxnIndex}), brought up to the log end by replaying the
 * batch headers past the recovery checkpoint, as partition open does (an Apache log dir, or a partition without
 * the two files, replays every head from the start). Data batches of an aborted transaction are left out, and
 * nothing at or past the last stable offset (the first offset of the oldest open transaction) is read.
 */
public final class TransactionView {
    private final Map<Long, List<AbortedTransaction>> abortedByProducer;
    private final long lastStableOffset;

    private TransactionView(List<AbortedTransaction> aborted, long lastStableOffset) {
        Map<Long, List<AbortedTransaction>> m = new HashMap<>();
        for (AbortedTransaction a : aborted) {
            m.computeIfAbsent(a.producerId(), k -> new ArrayList<>()).add(a);
        }
        this.abortedByProducer = m;
        this.lastStableOffset = lastStableOffset;
    }

    public static TransactionView read(PartitionDir p, List<SegmentFile> segments) {
        TxnIndexSnapshot snapshot = null;
        RecoveryCheckpoint checkpoint = null;
        if (!p.apache()) {
            snapshot = StateJson.read(p.path().resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class)
                    .orElse(null);
            checkpoint = StateJson.read(p.path().resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class)
                    .orElse(null);
        }
        TxnIndex index = TxnIndex.from(
                snapshot == null ? new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, List.of(), List.of()) : snapshot);
        int first = 0;
        long firstPosition = 0;
        if (snapshot != null && checkpoint != null) {
            for (int i = 0; i < segments.size(); i++) {
                if (segments.get(i).baseOffset() == checkpoint.segmentBase()) {
                    first = i;
                    firstPosition = checkpoint.bytePos();
                }
            }
        }
        for (int i = first; i < segments.size(); i++) {
            replay(segments.get(i), i == first ? firstPosition : 0, index);
        }
        // no open transaction: nothing bounds the read but the log end
        return new TransactionView(index.abortedRanges(), index.lastStableOffset(Long.MAX_VALUE));
    }

    /** Replays the heads of one segment from {@code position}. */
    private static void replay(SegmentFile s, long position, TxnIndex index) {
        ByteBuffer none = ByteBuffer.allocate(0);
        try (FileChannel ch = FileChannel.open(s.log(), StandardOpenOption.READ)) {
            long size = ch.size();
            HeaderCursor cursor = new HeaderCursor(ch, Math.min(position, size), size);
            while (cursor.next() == HeaderCursor.Framing.BATCH) {
                RecordBatchHeader h = cursor.header();
                if (!h.isTransactional() || !h.hasProducerId()) {
                    continue;
                }
                if (h.isControl()) {
                    ByteBuffer batch = ByteBuffer.allocate(h.sizeInBytes());
                    long at = cursor.position();
                    while (batch.hasRemaining()) {
                        if (ch.read(batch, at + batch.position()) < 0) {
                            break;
                        }
                    }
                    index.replay(h, batch.flip(), 0);
                } else {
                    index.replay(h, none, 0);
                }
            }
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, s.log() + ": cannot read: " + IoFailure.describe(e), e);
        }
    }

    /** Whether the data batch of {@code producerId} at {@code baseOffset} belongs to an aborted transaction. */
    public boolean aborted(long producerId, long baseOffset) {
        List<AbortedTransaction> ranges = abortedByProducer.get(producerId);
        if (ranges == null) {
            return false;
        }
        for (AbortedTransaction a : ranges) {
            if (a.firstOffset() <= baseOffset && baseOffset <= a.lastOffset()) {
                return true;
            }
        }
        return false;
    }

    /** The first offset read_committed must not read. */
    public long lastStableOffset() {
        return lastStableOffset;
    }
}
