package io.kaas.storage.state;

import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecordBatchHeader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Idempotent-producer state: per producer id, its epoch and its last {@link #WINDOW} batches
 * (first/last sequence, assigned base offset). A retry of any of those is a duplicate and gets the
 * original's offset back without a write — the same window Kafka keeps
 * (max.in.flight.requests.per.connection ≤ 5 for idempotence).
 *
 * <p>Holds Partition.lock for every call.
 */
public final class ProducerStateTable {
    public static final int WINDOW = 5;

    public enum Verdict {
        APPEND,
        DUPLICATE,
        OUT_OF_ORDER,
        FENCED,
        COORDINATOR_FENCED
    }

    /** Classification result; {@code duplicateOf} is set for DUPLICATE. */
    public record Classification(Verdict verdict, ProducerStateSnapshot.Batch duplicateOf, String detail) {
        static final Classification APPEND = new Classification(Verdict.APPEND, null, null);
    }

    private static final class Entry {
        short epoch;
        /** Largest batch timestamp seen since open (DescribeProducers); not in the snapshot, so -1 until the producer writes again. */
        long lastTimestamp = RecordBatchHeader.NO_TIMESTAMP;
        /** The coordinator epoch of the last transaction marker written for this producer (-1: none). */
        int coordinatorEpoch = ProducerStateSnapshot.Entry.NO_COORDINATOR_EPOCH;

        final ArrayDeque<ProducerStateSnapshot.Batch> recent = new ArrayDeque<>(WINDOW);
    }

    private final Map<Long, Entry> entries = new HashMap<>();

    public static ProducerStateTable from(ProducerStateSnapshot snapshot) {
        ProducerStateTable t = new ProducerStateTable();
        for (ProducerStateSnapshot.Entry e : snapshot.entries()) {
            Entry entry = new Entry();
            entry.epoch = e.epoch();
            entry.coordinatorEpoch = e.coordinatorEpoch();
            for (ProducerStateSnapshot.Batch b : e.recent()) {
                push(entry, b);
            }
            t.entries.put(e.producerId(), entry);
        }
        return t;
    }

    /** {@code h}, found at {@code pos} of {@code buf}: a transaction marker ({@link #classifyMarker}) or a producer's batch. */
    public Classification classify(RecordBatchHeader h, java.nio.ByteBuffer buf, int pos) {
        if (h.isControl() && h.hasProducerId()) {
            return classifyMarker(h, ControlMarker.coordinatorEpoch(buf, pos));
        }
        if (!h.hasProducerId() || h.baseSequence() == RecordBatchHeader.NO_SEQUENCE) {
            return Classification.APPEND;
        }
        Entry e = entries.get(h.producerId());
        if (e == null) {
            return Classification.APPEND;
        }
        if (h.producerEpoch() < e.epoch) {
            return new Classification(
                    Verdict.FENCED,
                    null,
                    "producer " + h.producerId() + " epoch " + h.producerEpoch() + " is older than the current epoch "
                            + e.epoch);
        }
        if (h.producerEpoch() > e.epoch) {
            return h.baseSequence() == 0
                    ? Classification.APPEND
                    : new Classification(
                            Verdict.OUT_OF_ORDER,
                            null,
                            "producer " + h.producerId() + " bumped its epoch to " + h.producerEpoch()
                                    + " but starts at sequence " + h.baseSequence());
        }
        for (ProducerStateSnapshot.Batch b : e.recent) {
            if (b.firstSeq() == h.baseSequence() && b.lastSeq() == h.lastSequence()) {
                return new Classification(Verdict.DUPLICATE, b, null);
            }
        }
        if (e.recent.isEmpty()) {
            return Classification.APPEND;
        }
        int expected = nextSequence(e.recent.peekLast().lastSeq());
        if (h.baseSequence() == expected) {
            return Classification.APPEND;
        }
        return new Classification(
                Verdict.OUT_OF_ORDER,
                null,
                "producer " + h.producerId() + " sent sequence " + h.baseSequence() + ", expected " + expected);
    }

    /**
     * A transaction marker for {@code h}'s producer from a coordinator in {@code coordinatorEpoch}: refused when a
     * marker of a later coordinator epoch was written for that producer already, as Apache's
     * {@code ProducerAppendInfo.appendEndTxnMarker} (TRANSACTION_COORDINATOR_FENCED): a coordinator that lost its slot
     * may still have a marker on its way, and with a producer epoch that stays the same across transactions (transaction
     * version 1) that late marker would end the producer's next transaction.
     */
    private Classification classifyMarker(RecordBatchHeader h, int coordinatorEpoch) {
        Entry e = entries.get(h.producerId());
        if (e != null && e.coordinatorEpoch > coordinatorEpoch) {
            return new Classification(
                    Verdict.COORDINATOR_FENCED,
                    null,
                    "invalid coordinator epoch for producer " + h.producerId() + ": " + coordinatorEpoch + " (zombie), "
                            + e.coordinatorEpoch + " (current)");
        }
        return Classification.APPEND;
    }

    private static int nextSequence(int seq) {
        return seq == Integer.MAX_VALUE ? 0 : seq + 1;
    }

    /** Records an appended batch (header carries the assigned base offset), found at {@code pos} of {@code buf}. */
    public void record(RecordBatchHeader h, java.nio.ByteBuffer buf, int pos) {
        if (!h.hasProducerId()) {
            return;
        }
        Entry e = entries.computeIfAbsent(h.producerId(), k -> new Entry());
        if (h.isControl()) {
            // The largest: a replay over a snapshot that already covers a marker sees it again.
            e.coordinatorEpoch = Math.max(e.coordinatorEpoch, ControlMarker.coordinatorEpoch(buf, pos));
        }
        e.lastTimestamp = Math.max(e.lastTimestamp, h.maxTimestamp());
        if (h.producerEpoch() != e.epoch) {
            if (h.producerEpoch() > e.epoch || e.recent.isEmpty()) {
                e.recent.clear();
            }
            e.epoch = h.producerEpoch();
        }
        if (h.isControl() || h.baseSequence() == RecordBatchHeader.NO_SEQUENCE) {
            return;
        }
        push(e, new ProducerStateSnapshot.Batch(h.baseSequence(), h.lastSequence(), h.baseOffset()));
    }

    /**
     * Replays a batch found in the log during recovery. Idempotent: a batch at or below the last
     * base offset already known for its producer is skipped, so replaying over a snapshot that already
     * covers part of the log is safe.
     */
    public void replay(RecordBatchHeader h, java.nio.ByteBuffer buf, int pos) {
        if (!h.hasProducerId()) {
            return;
        }
        Entry e = entries.get(h.producerId());
        if (e != null && !e.recent.isEmpty() && e.recent.peekLast().baseOffset() >= h.baseOffset()) {
            return;
        }
        record(h, buf, pos);
    }

    /**
     * Forgets batches at or beyond {@code logEndOffset}: after a crash the snapshot may describe
     * batches the log lost, and a retry of one of those must be written, not answered as a duplicate.
     *
     * @return how many batches were forgotten
     */
    public int dropAtOrAbove(long logEndOffset) {
        int dropped = 0;
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            int before = e.recent.size();
            e.recent.removeIf(b -> b.baseOffset() >= logEndOffset);
            dropped += before - e.recent.size();
        }
        return dropped;
    }

    private static void push(Entry e, ProducerStateSnapshot.Batch b) {
        if (e.recent.size() == WINDOW) {
            e.recent.removeFirst();
        }
        e.recent.addLast(b);
    }

    public ProducerStateSnapshot snapshot() {
        List<ProducerStateSnapshot.Entry> out = new ArrayList<>(entries.size());
        entries.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(en -> out.add(new ProducerStateSnapshot.Entry(
                        en.getKey(),
                        en.getValue().epoch,
                        new ArrayList<>(en.getValue().recent),
                        en.getValue().coordinatorEpoch)));
        return new ProducerStateSnapshot(ProducerStateSnapshot.VERSION, out);
    }

    /** The largest batch timestamp of this producer seen since the partition opened, or -1. */
    public long lastTimestamp(long producerId) {
        Entry e = entries.get(producerId);
        return e == null ? RecordBatchHeader.NO_TIMESTAMP : e.lastTimestamp;
    }

    /**
     * Producer id → base offset of its last data batch, for the producers that have one: the batch the
     * cleaner keeps (even emptied) so the producer's last sequence and epoch stay in the log, as Apache does.
     */
    public Map<Long, Long> lastBatchBaseOffsets() {
        Map<Long, Long> out = new HashMap<>();
        entries.forEach((id, e) -> {
            if (!e.recent.isEmpty()) {
                out.put(id, e.recent.peekLast().baseOffset());
            }
        });
        return out;
    }

    /** One producer as the snapshot would hold it (its window copied), or null when this table does not know it. */
    public ProducerStateSnapshot.Entry entry(long producerId) {
        Entry e = entries.get(producerId);
        return e == null
                ? null
                : new ProducerStateSnapshot.Entry(producerId, e.epoch, new ArrayList<>(e.recent), e.coordinatorEpoch);
    }

    public int producerCount() {
        return entries.size();
    }
}
