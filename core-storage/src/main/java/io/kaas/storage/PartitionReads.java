package io.kaas.storage;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.FileSlice;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.segment.SegmentTimeIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The read side of a partition: Fetch reads and the offset lookups (by timestamp, max timestamp, leader
 * epoch). Lock-free: every call works on one published {@link PartitionView}.
 */
final class PartitionReads {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final TopicPartition id;
    private final Supplier<PartitionView> view;
    private final BooleanSupplier closed;
    /** sendfile needs an OS file descriptor: the in-memory (jimfs) engine's channels have none, so it copies. */
    private final boolean slicesSupported;
    /** ListOffsets by timestamp: one in-memory time index per segment (see {@link SegmentTimeIndex} for why not a file). */
    private final Map<Segment, SegmentTimeIndex> timeIndexes = new WeakHashMap<>();

    PartitionReads(TopicPartition id, Supplier<PartitionView> view, BooleanSupplier closed, boolean slicesSupported) {
        this.id = id;
        this.view = view;
        this.closed = closed;
        this.slicesSupported = slicesSupported;
    }

    /** See {@link PartitionLog#read} and {@link PartitionLog#readForTransfer}. */
    FetchResult read(long fetchOffset, ReadLimit limit, long readCap, boolean forTransfer) {
        boolean asSlice = forTransfer && slicesSupported;
        while (true) {
            PartitionView v = view.get();
            PartitionState s = v.state();
            if (fetchOffset < s.logStartOffset() || fetchOffset > s.highWatermark()) {
                throw new StorageException(
                        StorageException.Kind.OFFSET_OUT_OF_RANGE,
                        String.format(
                                "%s: offset %d is outside [%d, %d]",
                                id, fetchOffset, s.logStartOffset(), s.highWatermark()));
            }
            long cap = Math.min(readCap, s.highWatermark());
            try {
                return readFrom(v.segments(), fetchOffset, limit, cap, s, asSlice);
            } catch (ClosedChannelException e) {
                if (!retryOnNewView(v)) {
                    throw new StorageException(
                            StorageException.Kind.OFFSET_OUT_OF_RANGE,
                            id + ": offset " + fetchOffset + " was removed while reading");
                }
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO,
                        id + ": read failed at offset " + fetchOffset + ": " + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * Whether a read that found a segment of {@code v} closed under it should run again on the current view. A
     * segment closes when the partition closes, or after a change replaced it (a cleaner swap) or removed it
     * (retention, DeleteRecords); every such change publishes its new view before it closes the old segments. So
     * a view other than {@code v} means "read there"; swaps can follow one another faster than a slow reader
     * reads, so one retry is not enough. An unchanged view means nothing replaced the segment.
     */
    private boolean retryOnNewView(PartitionView v) {
        return !closed.getAsBoolean() && view.get() != v;
    }

    /** The one read rule, for both copies and slices: see {@link Segment#wholeBatchesEnd}. */
    private static FetchResult readFrom(
            List<Segment> segs, long fetchOffset, ReadLimit limit, long cap, PartitionState state, boolean asSlice)
            throws IOException {
        if (fetchOffset >= cap) {
            return new FetchResult(EMPTY, state);
        }
        for (int i = floorSegment(segs, fetchOffset); i < segs.size(); i++) {
            Segment seg = segs.get(i);
            long end = seg.size();
            long pos = seg.positionOf(fetchOffset, end);
            if (pos < 0 && i == segs.size() - 1) {
                // Below the high watermark the log holds the offset: a last segment without it has offsets
                // damaged in bytes the open trusted (it scans only the active segment's tail).
                throw new StorageException(
                        StorageException.Kind.CORRUPT_BATCH,
                        seg.logFile() + ":" + seg.walkStartFor(fetchOffset)
                                + ": no batch from here holds offset " + fetchOffset + ", below the high watermark "
                                + cap
                                + ": run `kaas verify` on the partition");
            }
            if (pos < 0) {
                continue; // an offset gap after the segment's last batch (compaction): the next segment has it
            }
            int length = (int) (seg.wholeBatchesEnd(pos, end, limit.maxBytes(), cap) - pos);
            if (length == 0) {
                refuseImpossibleBase(segs, i, pos, fetchOffset, cap, state);
                return new FetchResult(EMPTY, state);
            }
            if (length > limit.maxBytes() && !limit.firstBatchMayExceed()) {
                return new FetchResult(EMPTY, state); // only the first batch, alone, is ever over maxBytes
            }
            FileSlice slice = asSlice ? seg.sliceOrNull(pos, length) : null;
            return slice != null ? new FetchResult(EMPTY, slice, state) : new FetchResult(seg.read(pos, length), state);
        }
        return new FetchResult(EMPTY, state);
    }

    /**
     * An empty read because the batch holding {@code fetchOffset} starts at or past the cap: legitimate (a
     * compacted gap up to a read-committed cap), unless its base offset (outside the CRC) is impossible for any
     * log: at or past the next segment's base offset, or, in the last segment (never cleaned), at or past the high
     * watermark for an offset of that segment below it. That is damage the open did not scan: refused as corrupt.
     * Only on this (rare) empty path: one more header read, none on a read that returns batches.
     */
    private static void refuseImpossibleBase(
            List<Segment> segs, int i, long pos, long fetchOffset, long cap, PartitionState state) throws IOException {
        Segment seg = segs.get(i);
        long base = seg.headerAt(pos).baseOffset();
        boolean last = i == segs.size() - 1;
        boolean impossible = last
                ? cap == state.highWatermark() && fetchOffset >= seg.baseOffset() && base >= cap
                : base >= segs.get(i + 1).baseOffset();
        if (impossible) {
            throw new StorageException(
                    StorageException.Kind.CORRUPT_BATCH,
                    seg.logFile() + ":" + pos + ": base offset " + base
                            + " of the batch holding offset " + fetchOffset + " is impossible here ("
                            + (last
                                    ? "high watermark " + cap
                                    : "the next segment starts at "
                                            + segs.get(i + 1).baseOffset())
                            + "): run `kaas verify` on the partition");
        }
    }

    private static int floorSegment(List<Segment> segs, long offset) {
        int lo = 0;
        int hi = segs.size() - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (segs.get(mid).baseOffset() <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** See {@link PartitionLog#firstBatchWithMaxTimestampAtLeast}. */
    Optional<StoredBatch> firstBatchWithMaxTimestampAtLeast(long timestamp, long fromOffset) {
        return copyingBatch("timestamp lookup", v -> {
            long from = Math.max(fromOffset, v.state().logStartOffset());
            List<Segment> segs = v.segments();
            for (int i = floorSegment(segs, from); i < segs.size(); i++) {
                Segment s = segs.get(i);
                if (s.maxTimestamp() < timestamp) {
                    continue;
                }
                long byOffset = s.positionOf(from, s.size());
                if (byOffset < 0) {
                    continue;
                }
                long start = Math.max(byOffset, timeIndexOf(s).startFor(s, timestamp));
                RecordBatchHeader h = s.firstBatchWithMaxTimestampAtLeast(timestamp, from, start);
                if (h != null) {
                    return copyOf(s, h.baseOffset(), v);
                }
            }
            return Optional.empty();
        });
    }

    /** The in-memory time index of a segment of this partition, made on first use; dropped with the segment. */
    private SegmentTimeIndex timeIndexOf(Segment s) {
        synchronized (timeIndexes) {
            return timeIndexes.computeIfAbsent(s, x -> new SegmentTimeIndex());
        }
    }

    /** See {@link PartitionLog#firstBatchWithMaxTimestamp}. */
    Optional<StoredBatch> firstBatchWithMaxTimestamp() {
        return copyingBatch("max timestamp lookup", v -> {
            Segment best = null;
            for (Segment s : v.segments()) {
                // Strictly greater: of segments sharing the largest timestamp, the first one (Apache's rule).
                if (s.offsetOfMaxTimestamp() >= 0 && (best == null || s.maxTimestamp() > best.maxTimestamp())) {
                    best = s;
                }
            }
            return best == null ? Optional.empty() : copyOf(best, best.offsetOfMaxTimestamp(), v);
        });
    }

    private interface BatchLookup {
        Optional<StoredBatch> in(PartitionView v) throws IOException;
    }

    /** Runs a lookup on the current view, again on a new view if a segment was closed under it ({@link #retryOnNewView}). */
    private Optional<StoredBatch> copyingBatch(String what, BatchLookup lookup) {
        while (true) {
            PartitionView v = view.get();
            try {
                return lookup.in(v);
            } catch (ClosedChannelException e) {
                if (!retryOnNewView(v)) {
                    throw new StorageException(
                            StorageException.Kind.IO, id + ": " + what + " failed: the partition was closed", e);
                }
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, id + ": " + what + " failed: " + e.getMessage(), e);
            }
        }
    }

    /** A copy of the whole batch holding {@code offset} (a batch's base offset) in {@code s}. */
    private static Optional<StoredBatch> copyOf(Segment s, long offset, PartitionView v) throws IOException {
        long pos = s.positionOf(offset, s.size());
        if (pos < 0) {
            return Optional.empty();
        }
        RecordBatchHeader h = s.headerAt(pos);
        return Optional.of(
                new StoredBatch(h, s.read(pos, h.sizeInBytes()), v.state().logStartOffset()));
    }

    /** See {@link PartitionLog#endOffsetForEpoch}. */
    Optional<PartitionLog.EpochEndOffset> endOffsetForEpoch(int requested) {
        PartitionView v = view.get();
        int current = v.state().leaderEpoch();
        if (requested >= current) {
            return requested == current
                    ? Optional.of(
                            new PartitionLog.EpochEndOffset(current, v.state().highWatermark()))
                    : Optional.empty();
        }
        // Epochs start where their first segment starts; the end of an epoch is the start of the next.
        int best = -1;
        long end = -1;
        for (Segment s : v.segments()) {
            int e = s.name().epoch();
            if (e <= requested) {
                best = Math.max(best, e);
            } else if (end < 0) {
                end = s.baseOffset();
            }
        }
        if (best < 0) {
            return Optional.empty();
        }
        return Optional.of(
                new PartitionLog.EpochEndOffset(best, end < 0 ? v.state().highWatermark() : end));
    }
}
