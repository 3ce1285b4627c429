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
 *
 * <p>Not thread-safe: a partition's index is changed and read under its lock. The one exception is
 * {@link #abortedRanges()}: an immutable list, replaced whenever a range is added or dropped (an abort
 * marker, a log start move: rare next to appends), which the partition publishes in its view so a
 * read_committed Fetch reads it without the lock.
 */
public final class TxnIndex {
    private final Map<Long, Long> open = new HashMap<>();
    private final List<TxnIndexSnapshot.Aborted> aborted = new ArrayList<>();
    private List<AbortedTransaction> abortedRanges = List.of();

    public static TxnIndex from(TxnIndexSnapshot s) {
        TxnIndex t = new TxnIndex();
        s.open().forEach(o -> t.open.put(o.producerId(), o.firstOffset()));
        t.aborted.addAll(s.aborted());
        t.abortedChanged();
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
                abortedChanged();
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
        if (aborted.removeIf(a -> a.lastOffset() >= logEndOffset)) {
            abortedChanged();
        }
        return before - open.size() - aborted.size();
    }

    /**
     * Forgets aborted ranges wholly below the new log start (DeleteRecords, retention): no Fetch can reach
     * them any more, and without this the index and its snapshot would grow with every abort, forever.
     */
    public void dropAbortedBelow(long logStartOffset) {
        if (aborted.removeIf(a -> a.lastOffset() < logStartOffset)) {
            abortedChanged();
        }
    }

    /** First offset of {@code producerId}'s open transaction, or -1 when it has none open. */
    public long openTransactionStart(long producerId) {
        return open.getOrDefault(producerId, -1L);
    }

    /** First offset of the oldest open transaction, or {@code highWatermark}. */
    public long lastStableOffset(long highWatermark) {
        long lso = highWatermark;
        for (long first : open.values()) {
            lso = Math.min(lso, first);
        }
        return lso;
    }

    /**
     * Every aborted range this index holds, in the order their markers were written (so by last offset),
     * as an immutable list that is replaced, never changed: safe to hand to readers on other threads.
     */
    public List<AbortedTransaction> abortedRanges() {
        return abortedRanges;
    }

    /**
     * The ranges of {@code ranges} overlapping [{@code from}, {@code upperBound}): what a read_committed
     * Fetch of those offsets must be told, so the consumer drops the aborted batches among them.
     */
    public static List<AbortedTransaction> overlapping(List<AbortedTransaction> ranges, long from, long upperBound) {
        List<AbortedTransaction> out = new ArrayList<>();
        for (AbortedTransaction a : ranges) {
            if (a.lastOffset() >= from && a.firstOffset() < upperBound) {
                out.add(a);
            }
        }
        return out;
    }

    private void abortedChanged() {
        List<AbortedTransaction> ranges = new ArrayList<>(aborted.size());
        for (TxnIndexSnapshot.Aborted a : aborted) {
            ranges.add(new AbortedTransaction(a.producerId(), a.firstOffset(), a.lastOffset()));
        }
        abortedRanges = List.copyOf(ranges);
    }

    public TxnIndexSnapshot snapshot() {
        List<TxnIndexSnapshot.Open> o = new ArrayList<>();
        open.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> o.add(new TxnIndexSnapshot.Open(e.getKey(), e.getValue())));
        return new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, o, aborted);
    }
}
