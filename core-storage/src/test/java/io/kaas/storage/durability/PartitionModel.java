package io.kaas.storage.durability;

import io.kaas.storage.Acks;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What one partition has promised: every batch whose offsets the engine returned, which of them are
 * durable (below {@link #durableEnd}: an acks=all acknowledgement covers every byte before it), and the
 * log start that DeleteRecords or retention acknowledged. Thread-safe: bursts record from several threads.
 */
final class PartitionModel {
    /** A batch the engine placed at {@code baseOffset}; {@code bytes} as sent (or as read back after a reopen). */
    record Placed(long baseOffset, long lastOffset, ByteBuffer bytes, Acks acks, long producerId) {}

    private final List<Placed> placed = new ArrayList<>();
    /** Producer id → base sequences in the order they were sent (appended or not: a failed append may be on disk). */
    private final java.util.Map<Long, List<Integer>> sent = new java.util.HashMap<>();

    private long durableEnd;
    private long acknowledgedLogStart;

    synchronized void sending(long producerId, int baseSequence) {
        sent.computeIfAbsent(producerId, k -> new ArrayList<>()).add(baseSequence);
    }

    /**
     * Whether a real producer could still retry this batch: it is among the producer's last
     * {@code window} sends (max.in.flight ≤ 5 means it never has more unacknowledged batches).
     */
    synchronized boolean inRetryWindow(long producerId, int baseSequence, int window) {
        List<Integer> seqs = sent.getOrDefault(producerId, List.of());
        int i = seqs.lastIndexOf(baseSequence);
        return i >= 0 && i >= seqs.size() - window;
    }

    synchronized void appended(Placed p) {
        placed.add(p);
        if (p.acks() == Acks.ALL) {
            durableEnd = Math.max(durableEnd, p.lastOffset() + 1);
        }
    }

    synchronized void logStartAcknowledged(long logStart) {
        acknowledgedLogStart = Math.max(acknowledgedLogStart, logStart);
    }

    /** A clean close fsyncs everything written, acks=1 included. */
    synchronized void allDurableUpTo(long end) {
        durableEnd = Math.max(durableEnd, end);
    }

    /** After a verified reopen the recovered log is the truth (recovery fsynced it); forget the rest. */
    synchronized void resetTo(List<Placed> recovered, long highWatermark, long logStart) {
        placed.clear();
        placed.addAll(recovered);
        durableEnd = highWatermark;
        acknowledgedLogStart = Math.max(acknowledgedLogStart, logStart);
    }

    /** Batches that must be in the log: those below the durable end. */
    synchronized List<Placed> mustSurvive() {
        List<Placed> out = new ArrayList<>();
        for (Placed p : placed) {
            if (p.lastOffset() < durableEnd) {
                out.add(p);
            }
        }
        return out;
    }

    synchronized long durableEnd() {
        return durableEnd;
    }

    synchronized long acknowledgedLogStart() {
        return acknowledgedLogStart;
    }
}
