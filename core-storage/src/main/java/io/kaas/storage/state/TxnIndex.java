package io.kaas.storage.state;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TxnIndexSnapshot;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Open transactions and aborted ranges, for the last stable offset and read_committed Fetch.
 * Holds Partition.lock for writes; {@link #aborted(long, long)} copies under the same lock.
 */
public final class TxnIndex {
    private final Map<Long, Long> open = new HashMap<>();
    private final List<TxnIndexSnapshot.Aborted> aborted = new ArrayList<>();

    public static TxnIndex from(TxnIndexSnapshot s) {
        TxnIndex t = new TxnIndex();
        s.open().forEach(o -> t.open.put(o.producerId(), o.firstOffset()));
        t.aborted.addAll(s.aborted());
        return t;
    }

    /** Notes an appended batch (base offset assigned) found at {@code pos} of {@code buf}. */
    public void onAppend(RecordBatchHeader h, ByteBuffer buf, int pos) {
        if (!h.isTransactional() || !h.hasProducerId()) {
            return;
        }
        if (h.isControl()) {
            Long first = open.remove(h.producerId());
            if (first != null && ControlMarker.type(buf, pos) == ControlMarker.ABORT) {
                aborted.add(new TxnIndexSnapshot.Aborted(h.producerId(), first, h.lastOffset()));
            }
        } else {
            open.putIfAbsent(h.producerId(), h.baseOffset());
        }
    }

    /** Replay during recovery: skip batches the snapshot already covers. */
    public void replay(RecordBatchHeader h, ByteBuffer buf, int pos) {
        Long first = open.get(h.producerId());
        if (first != null && !h.isControl() && h.baseOffset() <= first) {
            return;
        }
        for (TxnIndexSnapshot.Aborted a : aborted) {
            if (a.producerId() == h.producerId() && h.baseOffset() <= a.lastOffset()) {
                return;
            }
        }
        onAppend(h, buf, pos);
    }

    /** Forgets what lies at or beyond the recovered log end; returns how many open and aborted entries went. */
    public int dropAtOrAbove(long logEndOffset) {
        int before = open.size() + aborted.size();
        open.values().removeIf(first -> first >= logEndOffset);
        aborted.removeIf(a -> a.lastOffset() >= logEndOffset);
        return before - open.size() - aborted.size();
    }

    /**
     * Forgets aborted ranges wholly below the new log start (DeleteRecords, retention): no Fetch can reach
     * them any more, and without this the index and its snapshot would grow with every abort, forever.
     */
    public void dropAbortedBelow(long logStartOffset) {
        aborted.removeIf(a -> a.lastOffset() < logStartOffset);
    }

    /** First offset of the oldest open transaction, or {@code highWatermark}. */
    public long lastStableOffset(long highWatermark) {
        long lso = highWatermark;
        for (long first : open.values()) {
            lso = Math.min(lso, first);
        }
        return lso;
    }

    public List<AbortedTransaction> aborted(long from, long upperBound) {
        List<AbortedTransaction> out = new ArrayList<>();
        for (TxnIndexSnapshot.Aborted a : aborted) {
            if (a.lastOffset() >= from && a.firstOffset() < upperBound) {
                out.add(new AbortedTransaction(a.producerId(), a.firstOffset(), a.lastOffset()));
            }
        }
        return out;
    }

    public TxnIndexSnapshot snapshot() {
        List<TxnIndexSnapshot.Open> o = new ArrayList<>();
        open.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> o.add(new TxnIndexSnapshot.Open(e.getKey(), e.getValue())));
        return new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, o, aborted);
    }
}
