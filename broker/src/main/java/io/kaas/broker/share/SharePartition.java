package io.kaas.broker.share;

import io.kaas.broker.share.InFlightRuns.Run;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * One share partition's state as KIP-932 defines it: the share-partition start offset (SPSO, below
 * which every record is done with), the end offset (SPEO, the first offset never acquired), and
 * between them each record's {@link RecordState}, delivery count and, while acquired, its member and
 * lock deadline. Acquiring counts a delivery; a release (explicit, by lock timeout, or because its
 * member left) makes a record available again unless it reached the delivery-count limit, in which case
 * it is archived. Not thread-safe: its owner ({@link ShareGroup}) guards it.
 *
 * <p>The records between start and end are kept as runs of consecutive offsets that share all of that
 * ({@link InFlightRuns}): a fetch acquires a run, an acknowledgement of what it got accepts that run.
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

    /** The durable part of a run of in-flight records: {@code firstOffset} to {@code lastOffset}, alike. */
    public record StoredRun(long firstOffset, long lastOffset, RecordState state, int deliveryCount) {}

    /** The durable part of the partition: acquired records are stored as such, and restored as available. */
    public record Snapshot(long startOffset, long endOffset, List<StoredRun> runs) {}

    private long startOffset;
    private long endOffset;
    // Covering [startOffset, endOffset) without gaps; the first run is never done with.
    private final InFlightRuns runs = new InFlightRuns();

    public SharePartition(long startOffset) {
        this.startOffset = startOffset;
        this.endOffset = startOffset;
    }

    /**
     * The state a broker restarts with: what was acquired is available again, its delivery counted. Offsets of
     * {@code [start, end)} a snapshot does not list are available, never delivered.
     */
    public static SharePartition restore(Snapshot s) {
        SharePartition p = new SharePartition(s.startOffset());
        p.endOffset = Math.max(s.startOffset(), s.endOffset());
        long next = p.startOffset;
        for (StoredRun r : s.runs()) {
            long first = Math.max(r.firstOffset(), next);
            long last = Math.min(r.lastOffset(), p.endOffset - 1);
            if (first > last) {
                continue;
            }
            if (first > next) {
                p.runs.put(new Run(next, first - 1, RecordState.AVAILABLE, 0));
            }
            RecordState state = r.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state();
            p.runs.put(new Run(first, last, state, r.deliveryCount()));
            next = last + 1;
        }
        if (next < p.endOffset) {
            p.runs.put(new Run(next, p.endOffset - 1, RecordState.AVAILABLE, 0));
        }
        p.runs.joinAlike();
        p.advanceStart();
        return p;
    }

    public Snapshot snapshot() {
        List<StoredRun> out = new ArrayList<>(runs.size());
        for (Run r : runs.all()) {
            out.add(new StoredRun(r.first, r.last, r.state, r.deliveryCount));
        }
        return new Snapshot(startOffset, endOffset, out);
    }

    public long startOffset() {
        return startOffset;
    }

    public long endOffset() {
        return endOffset;
    }

    /** How many runs the in-flight records form now (what acquisition and acknowledgement work through). */
    int runCount() {
        return runs.size();
    }

    /** The state of {@code offset} (offsets below the start are done with, at or past the end not yet seen). */
    public RecordState state(long offset) {
        if (offset < startOffset) {
            return RecordState.ACKNOWLEDGED;
        }
        Run r = runAt(offset);
        return r == null ? RecordState.AVAILABLE : r.state;
    }

    public int deliveryCount(long offset) {
        Run r = offset < startOffset ? null : runAt(offset);
        return r == null ? 0 : r.deliveryCount;
    }

    /** How many records between start and end are done with (acknowledged or archived) already. */
    public long doneAheadOfStart() {
        long n = 0;
        for (Run r : runs.all()) {
            if (r.done()) {
                n += r.size();
            }
        }
        return n;
    }

    /** Where the next fetch should read from: the first available in-flight record, else the end offset. */
    public long nextFetchOffset() {
        for (Run r : runs.all()) {
            if (r.state == RecordState.AVAILABLE) {
                return r.first;
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
     * read_committed). Records that are not deliverable are archived as they are passed. New records are
     * taken only while the in-flight window (end minus start) is below {@code maxInFlightRecords}.
     */
    public List<Acquired> acquire(
            String member, List<Batch> batches, int maxRecords, long cap, long nowMs, Limits limits) {
        List<Acquired> out = new ArrayList<>();
        long deadline = nowMs + limits.lockDurationMs();
        long taken = 0;
        for (Batch b : batches) {
            long o = Math.max(b.baseOffset(), startOffset);
            while (o <= b.lastOffset() && taken < maxRecords) {
                if (o < endOffset) { // records seen before: only the available ones, run by run
                    Run r = runAt(o);
                    long upTo = Math.min(r.last, b.lastOffset());
                    if (r.state != RecordState.AVAILABLE) {
                        o = upTo + 1;
                        continue;
                    }
                    if (!b.deliverable()) {
                        runs.isolate(o, upTo).finish(RecordState.ARCHIVED);
                        o = upTo + 1;
                        continue;
                    }
                    long last = Math.min(upTo, o + (maxRecords - taken) - 1);
                    Run got = runs.isolate(o, last);
                    got.acquire(member, deadline);
                    add(out, o, last, got.deliveryCount);
                    taken += last - o + 1;
                    o = last + 1;
                    continue;
                }
                if (o >= cap || endOffset - startOffset >= limits.maxInFlightRecords()) {
                    break;
                }
                if (o > endOffset) { // offsets with no batch (compacted away)
                    append(new Run(endOffset, o - 1, RecordState.ARCHIVED, 0));
                }
                // The window is checked before each new offset, as above; the first one past a gap is let in.
                long windowEnd = Math.max(o + 1, startOffset + limits.maxInFlightRecords());
                long end = Math.min(Math.min(b.lastOffset() + 1, cap), windowEnd); // exclusive
                if (!b.deliverable()) {
                    append(new Run(o, end - 1, RecordState.ARCHIVED, 0));
                    o = end;
                    continue;
                }
                end = Math.min(end, o + (maxRecords - taken));
                Run fresh = new Run(o, end - 1, RecordState.AVAILABLE, 0);
                fresh.acquire(member, deadline);
                append(fresh);
                add(out, o, end - 1, 1);
                taken += end - o;
                o = end;
            }
        }
        runs.joinAlike();
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
        if (first < startOffset || last >= endOffset) {
            return Errors.INVALID_RECORD_STATE;
        }
        for (long o = first; o <= last; ) {
            Run r = runAt(o);
            if (r.state != RecordState.ACQUIRED || !member.equals(r.member)) {
                return Errors.INVALID_RECORD_STATE;
            }
            o = r.last + 1;
        }
        int i = 0;
        while (i < types.size()) { // one step per stretch of one type (all of it when the request sends one type)
            int j = i;
            while (j + 1 < types.size() && types.get(j + 1) == types.get(i)) {
                j++;
            }
            long a = first + i;
            long z = types.size() == 1 ? last : first + j;
            apply(types.get(i), a, z, nowMs, limits);
            i = j + 1;
        }
        runs.joinAlike();
        advanceStart();
        return Errors.NONE;
    }

    private void apply(AcknowledgeType t, long first, long last, long nowMs, Limits limits) {
        runs.split(first);
        runs.split(last + 1);
        for (Run r : runs.startingIn(first, last)) {
            switch (t) {
                case ACCEPT -> r.finish(RecordState.ACKNOWLEDGED);
                case REJECT, GAP -> r.finish(RecordState.ARCHIVED);
                case RELEASE -> r.release(limits);
                case RENEW -> r.lockDeadlineMs = nowMs + limits.lockDurationMs();
            }
        }
    }

    /** Releases every record whose lock has expired by {@code nowMs}; whether any was. */
    public boolean expireLocks(long nowMs, Limits limits) {
        boolean any = false;
        for (Run r : runs.all()) {
            if (r.state == RecordState.ACQUIRED && r.lockDeadlineMs <= nowMs) {
                r.release(limits);
                any = true;
            }
        }
        if (any) {
            runs.joinAlike();
            advanceStart();
        }
        return any;
    }

    /** Releases every record {@code member} holds (it left, or its session timed out); whether it held any. */
    public boolean releaseMember(String member, Limits limits) {
        boolean any = false;
        for (Run r : runs.all()) {
            if (r.state == RecordState.ACQUIRED && member.equals(r.member)) {
                r.release(limits);
                any = true;
            }
        }
        if (any) {
            runs.joinAlike();
            advanceStart();
        }
        return any;
    }

    /** The earliest lock deadline of an acquired record, or {@link Long#MAX_VALUE}. */
    public long nextLockDeadline() {
        long min = Long.MAX_VALUE;
        for (Run r : runs.all()) {
            if (r.state == RecordState.ACQUIRED) {
                min = Math.min(min, r.lockDeadlineMs);
            }
        }
        return min;
    }

    /** The log's start moved past records not done with (retention, DeleteRecords): they are gone. */
    public void logStartMovedTo(long logStart) {
        if (logStart <= startOffset) {
            return;
        }
        if (logStart >= endOffset) {
            runs.clear();
            endOffset = logStart;
        } else {
            runs.dropBelow(logStart);
        }
        startOffset = logStart;
        advanceStart();
    }

    /** AlterShareGroupOffsets: start over at {@code offset}, forgetting every in-flight record. */
    public void resetTo(long offset) {
        runs.clear();
        startOffset = offset;
        endOffset = offset;
    }

    /** The run that holds {@code offset}, which is in {@code [startOffset, endOffset)}; else null. */
    private Run runAt(long offset) {
        return offset >= endOffset ? null : runs.at(offset);
    }

    /** Adds a run at the end offset, joined to the last one when alike. */
    private void append(Run r) {
        runs.append(r);
        endOffset = r.last + 1;
    }

    private static void add(List<Acquired> out, long first, long last, int deliveryCount) {
        Acquired prev = out.isEmpty() ? null : out.get(out.size() - 1);
        if (prev != null && prev.lastOffset() == first - 1 && prev.deliveryCount() == deliveryCount) {
            out.set(out.size() - 1, new Acquired(prev.firstOffset(), last, deliveryCount));
        } else {
            out.add(new Acquired(first, last, deliveryCount));
        }
    }

    private void advanceStart() {
        startOffset = runs.dropDoneFront(startOffset, endOffset);
    }
}
