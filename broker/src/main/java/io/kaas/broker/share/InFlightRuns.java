package io.kaas.broker.share;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The in-flight records of one {@link SharePartition} as runs of consecutive offsets that share a state, a
 * delivery count and, while acquired, a member and a lock deadline (as Apache's {@code SharePartition} keeps an
 * {@code InFlightBatch} per fetched batch). The runs are kept by first offset and cover the partition's
 * {@code [start, end)} without gaps, so an offset past the last run is past the end. A run is split only where
 * an acknowledgement, a renewal or a limit cuts through it, and neighbours that became alike are joined again:
 * a fetch and the acknowledgement of what it got each cost work per run, not per record. Not thread-safe: the
 * partition's owner guards it.
 */
final class InFlightRuns {
    /** Consecutive offsets in one state with one delivery count and, while acquired, one member and deadline. */
    static final class Run {
        final long first;
        long last;
        RecordState state;
        int deliveryCount;
        String member;
        long lockDeadlineMs;

        Run(long first, long last, RecordState state, int deliveryCount) {
            this.first = first;
            this.last = last;
            this.state = state;
            this.deliveryCount = deliveryCount;
        }

        Run copyFrom(long from) {
            Run r = new Run(from, last, state, deliveryCount);
            r.member = member;
            r.lockDeadlineMs = lockDeadlineMs;
            return r;
        }

        boolean alike(Run o) {
            return state == o.state
                    && deliveryCount == o.deliveryCount
                    && lockDeadlineMs == o.lockDeadlineMs
                    && Objects.equals(member, o.member);
        }

        boolean done() {
            return state == RecordState.ACKNOWLEDGED || state == RecordState.ARCHIVED;
        }

        long size() {
            return last - first + 1;
        }

        void acquire(String by, long deadline) {
            state = RecordState.ACQUIRED;
            deliveryCount++;
            member = by;
            lockDeadlineMs = deadline;
        }

        void finish(RecordState to) {
            state = to;
            member = null;
            lockDeadlineMs = 0;
        }

        void release(SharePartition.Limits limits) {
            finish(deliveryCount >= limits.deliveryCountLimit() ? RecordState.ARCHIVED : RecordState.AVAILABLE);
        }
    }

    // Runs by first offset; the first is never done with once the partition's start has advanced.
    private final TreeMap<Long, Run> runs = new TreeMap<>();

    /** Every run, in offset order. */
    Collection<Run> all() {
        return runs.values();
    }

    /** The runs that start in {@code [first, last]}, in offset order. */
    Collection<Run> startingIn(long first, long last) {
        return runs.subMap(first, true, last, true).values();
    }

    int size() {
        return runs.size();
    }

    boolean isEmpty() {
        return runs.isEmpty();
    }

    void clear() {
        runs.clear();
    }

    /** The run that holds {@code offset}, or null when no run does (below the first or past the last). */
    Run at(long offset) {
        Map.Entry<Long, Run> e = runs.floorEntry(offset);
        return e == null || e.getValue().last < offset ? null : e.getValue();
    }

    /** Makes {@code offset} the first of a run, when it falls inside one. */
    void split(long offset) {
        Run r = at(offset);
        if (r != null && r.first < offset) {
            Run tail = r.copyFrom(offset);
            r.last = offset - 1;
            runs.put(offset, tail);
        }
    }

    /** The one run {@code [first, last]}, split off what it was part of (which held all of it). */
    Run isolate(long first, long last) {
        split(first);
        split(last + 1);
        return runs.get(first);
    }

    void put(Run r) {
        runs.put(r.first, r);
    }

    /** Adds a run after the last one, joined to it when alike. */
    void append(Run r) {
        Map.Entry<Long, Run> lastEntry = runs.lastEntry();
        if (lastEntry != null && lastEntry.getValue().alike(r)) {
            lastEntry.getValue().last = r.last;
        } else {
            put(r);
        }
    }

    /** Forgets every run below {@code offset}, splitting the one it falls in. */
    void dropBelow(long offset) {
        split(offset);
        runs.headMap(offset).clear();
    }

    /** Joins neighbouring runs that became alike, so the runs stay as few as the states allow. */
    void joinAlike() {
        Iterator<Run> it = runs.values().iterator();
        Run prev = null;
        while (it.hasNext()) {
            Run r = it.next();
            if (prev != null && prev.alike(r)) {
                prev.last = r.last;
                it.remove();
            } else {
                prev = r;
            }
        }
    }

    /**
     * Drops the done-with runs at the front and answers where the partition starts now: the first offset not
     * done with, or {@code end} when none is in flight.
     */
    long dropDoneFront(long start, long end) {
        long newStart = start;
        while (!runs.isEmpty()) {
            Run first = runs.firstEntry().getValue();
            if (!first.done()) {
                break;
            }
            runs.pollFirstEntry();
            newStart = first.last + 1;
        }
        return runs.isEmpty() ? end : newStart;
    }
}
