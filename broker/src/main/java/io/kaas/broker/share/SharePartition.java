package io.kaas.broker.share;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * One share partition's state as KIP-932 defines it: the share-partition start offset (SPSO, below
 * which every record is done with), the end offset (SPEO, the first offset never acquired), and
 * between them each record's {@link RecordState}, delivery count and, while acquired, its member and
 * lock deadline. Acquiring counts a delivery; a release (explicit, by lock timeout, or because its
 * member left) makes a record available again unless it reached the delivery-count limit, in which case
 * it is archived. Not thread-safe: its owner ({@link ShareGroup}) guards it.
 */
public final class SharePartition {
    /** The group configs that bound a partition's deliveries. */
    public record Limits(int lockDurationMs, int deliveryCountLimit, int maxInFlightRecords) {}

    /** A run of offsets acquired by one fetch, all with the same delivery count (ShareFetch's AcquiredRecords). */
    public record Acquired(long firstOffset, long lastOffset, int deliveryCount) {}

    /**
     * A record batch of the log as far as acquisition cares: its offsets, and whether its records are
     * delivered at all (not a control batch, not of an aborted transaction under read_committed).
     */
    public record Batch(long baseOffset, long lastOffset, boolean deliverable) {}

    /** The durable part of one in-flight record. */
    public record StoredRecord(long offset, RecordState state, int deliveryCount) {}

    /** The durable part of the partition: acquired records are stored as available, with their delivery count. */
    public record Snapshot(long startOffset, long endOffset, List<StoredRecord> records) {}

    private static final class InFlight {
        RecordState state;
        int deliveryCount;
        String member;
        long lockDeadlineMs;

        InFlight(RecordState state, int deliveryCount) {
            this.state = state;
            this.deliveryCount = deliveryCount;
        }
    }

    private long startOffset;
    private long endOffset;
    // Every offset in [startOffset, endOffset) that is not done with, and those done with behind the first that is not.
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();

    public SharePartition(long startOffset) {
        this.startOffset = startOffset;
        this.endOffset = startOffset;
    }

    /** The state a broker restarts with: what was acquired is available again, its delivery counted. */
    public static SharePartition restore(Snapshot s) {
        SharePartition p = new SharePartition(s.startOffset());
        p.endOffset = Math.max(s.startOffset(), s.endOffset());
        for (StoredRecord r : s.records()) {
            if (r.offset() >= p.startOffset && r.offset() < p.endOffset) {
                RecordState state = r.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state();
                p.inFlight.put(r.offset(), new InFlight(state, r.deliveryCount()));
            }
        }
        p.advanceStart();
        return p;
    }

    public Snapshot snapshot() {
        List<StoredRecord> records = new ArrayList<>(inFlight.size());
        inFlight.forEach((o, r) -> records.add(new StoredRecord(o, r.state, r.deliveryCount)));
        return new Snapshot(startOffset, endOffset, records);
    }

    public long startOffset() {
        return startOffset;
    }

    public long endOffset() {
        return endOffset;
    }

    /** The state of {@code offset} (offsets below the start are done with, at or past the end not yet seen). */
    public RecordState state(long offset) {
        if (offset < startOffset) {
            return RecordState.ACKNOWLEDGED;
        }
        InFlight r = inFlight.get(offset);
        return r == null ? RecordState.AVAILABLE : r.state;
    }

    public int deliveryCount(long offset) {
        InFlight r = inFlight.get(offset);
        return r == null ? 0 : r.deliveryCount;
    }

    /** How many records between start and end are done with (acknowledged or archived) already. */
    public long doneAheadOfStart() {
        return inFlight.values().stream()
                .filter(r -> r.state == RecordState.ACKNOWLEDGED || r.state == RecordState.ARCHIVED)
                .count();
    }

    /** Where the next fetch should read from: the first available in-flight record, else the end offset. */
    public long nextFetchOffset() {
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            if (e.getValue().state == RecordState.AVAILABLE) {
                return e.getKey();
            }
        }
        return endOffset;
    }

    /** Whether a fetch could acquire anything, with the log readable up to {@code cap} (exclusive). */
    public boolean canAcquire(long cap, Limits limits) {
        return nextFetchOffset() < endOffset
                || (endOffset < cap && endOffset - startOffset < limits.maxInFlightRecords());
    }

    /**
     * Acquires for {@code member} up to {@code maxRecords} records of {@code batches} (read from the log
     * from {@link #nextFetchOffset}), below {@code cap} (the high watermark, or the last stable offset under
     * read_committed). Records that are not deliverable are archived as they are passed.
     */
    public List<Acquired> acquire(
            String member, List<Batch> batches, int maxRecords, long cap, long nowMs, Limits limits) {
        List<Acquired> out = new ArrayList<>();
        int taken = 0;
        for (Batch b : batches) {
            for (long o = Math.max(b.baseOffset(), startOffset); o <= b.lastOffset() && taken < maxRecords; o++) {
                InFlight r;
                if (o < endOffset) {
                    r = inFlight.get(o);
                    if (r == null || r.state != RecordState.AVAILABLE) {
                        continue;
                    }
                } else {
                    if (o >= cap || endOffset - startOffset >= limits.maxInFlightRecords()) {
                        break;
                    }
                    for (long gap = endOffset; gap < o; gap++) { // offsets with no batch (compacted away)
                        inFlight.put(gap, new InFlight(RecordState.ARCHIVED, 0));
                    }
                    r = new InFlight(RecordState.AVAILABLE, 0);
                    inFlight.put(o, r);
                    endOffset = o + 1;
                }
                if (!b.deliverable()) {
                    r.state = RecordState.ARCHIVED;
                    continue;
                }
                r.state = RecordState.ACQUIRED;
                r.deliveryCount++;
                r.member = member;
                r.lockDeadlineMs = nowMs + limits.lockDurationMs();
                taken++;
                Acquired last = out.isEmpty() ? null : out.get(out.size() - 1);
                if (last != null && last.lastOffset() == o - 1 && last.deliveryCount() == r.deliveryCount) {
                    out.set(out.size() - 1, new Acquired(last.firstOffset(), o, last.deliveryCount()));
                } else {
                    out.add(new Acquired(o, o, r.deliveryCount));
                }
            }
        }
        advanceStart();
        return out;
    }

    /**
     * Acknowledges {@code [first, last]} for {@code member}: {@code types} holds one type for the whole
     * range or one per offset. Every offset must be acquired by that member, else nothing changes and the
     * answer is INVALID_RECORD_STATE, as Apache answers.
     */
    public Errors acknowledge(
            String member, long first, long last, List<AcknowledgeType> types, long nowMs, Limits limits) {
        long count = last - first + 1;
        if (count <= 0 || (types.size() != 1 && types.size() != count)) {
            return Errors.INVALID_REQUEST;
        }
        for (long o = first; o <= last; o++) {
            InFlight r = inFlight.get(o);
            if (o < startOffset || r == null || r.state != RecordState.ACQUIRED || !member.equals(r.member)) {
                return Errors.INVALID_RECORD_STATE;
            }
        }
        for (long o = first; o <= last; o++) {
            InFlight r = inFlight.get(o);
            AcknowledgeType t = types.size() == 1 ? types.get(0) : types.get((int) (o - first));
            switch (t) {
                case ACCEPT -> done(r, RecordState.ACKNOWLEDGED);
                case REJECT, GAP -> done(r, RecordState.ARCHIVED);
                case RELEASE -> release(r, limits);
                case RENEW -> r.lockDeadlineMs = nowMs + limits.lockDurationMs();
            }
        }
        advanceStart();
        return Errors.NONE;
    }

    /** Releases every record whose lock has expired by {@code nowMs}; whether any was. */
    public boolean expireLocks(long nowMs, Limits limits) {
        boolean any = false;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED && r.lockDeadlineMs <= nowMs) {
                release(r, limits);
                any = true;
            }
        }
        advanceStart();
        return any;
    }

    /** Releases every record {@code member} holds (it left, or its session timed out); whether it held any. */
    public boolean releaseMember(String member, Limits limits) {
        boolean any = false;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED && member.equals(r.member)) {
                release(r, limits);
                any = true;
            }
        }
        advanceStart();
        return any;
    }

    /** The earliest lock deadline of an acquired record, or {@link Long#MAX_VALUE}. */
    public long nextLockDeadline() {
        long min = Long.MAX_VALUE;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED) {
                min = Math.min(min, r.lockDeadlineMs);
            }
        }
        return min;
    }

    /** The log's start moved past records not done with (retention, DeleteRecords): they are gone. */
    public void logStartMovedTo(long logStart) {
        if (logStart > startOffset) {
            inFlight.headMap(logStart).clear();
            startOffset = logStart;
            endOffset = Math.max(endOffset, logStart);
            advanceStart();
        }
    }

    /** AlterShareGroupOffsets: start over at {@code offset}, forgetting every in-flight record. */
    public void resetTo(long offset) {
        inFlight.clear();
        startOffset = offset;
        endOffset = offset;
    }

    private static void done(InFlight r, RecordState state) {
        r.state = state;
        r.member = null;
    }

    private static void release(InFlight r, Limits limits) {
        done(r, r.deliveryCount >= limits.deliveryCountLimit() ? RecordState.ARCHIVED : RecordState.AVAILABLE);
    }

    private void advanceStart() {
        while (!inFlight.isEmpty()) {
            Map.Entry<Long, InFlight> first = inFlight.firstEntry();
            RecordState s = first.getValue().state;
            if (s != RecordState.ACKNOWLEDGED && s != RecordState.ARCHIVED) {
                break;
            }
            inFlight.pollFirstEntry();
            startOffset = first.getKey() + 1;
        }
        if (inFlight.isEmpty()) {
            startOffset = endOffset;
        }
    }
}
