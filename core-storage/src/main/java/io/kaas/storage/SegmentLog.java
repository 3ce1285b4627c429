package io.kaas.storage;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's segments, oldest first, the last one active, and the next offset to assign: where an
 * append's bytes go. Keeps an immutable copy of the list for lock-free readers.
 *
 * <p>Not thread-safe: every call holds the partition lock. The list changes only on load, roll and
 * removal, so the copy and the byte count of the closed segments are recomputed there, never on the
 * append path.
 */
final class SegmentLog {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentLog.class);

    private final Path dir;
    private final int epoch;
    private final IndexPolicy indexPolicy;
    private final FileHandleCache files;
    private final ArrayList<Segment> segments = new ArrayList<>();
    private List<Segment> readerCopy = List.of();
    private long closedBytes;
    private long nextOffset;

    private SegmentLog(Path dir, int epoch, IndexPolicy indexPolicy, long nextOffset, FileHandleCache files) {
        this.dir = dir;
        this.files = files;
        this.epoch = epoch;
        this.indexPolicy = indexPolicy;
        this.nextOffset = nextOffset;
    }

    /**
     * Opens the segments recovery kept; with none, creates the first at {@code logEnd} without fsyncing
     * its directory entry: the caller writes the partition's first manifest into the same directory next,
     * and that write's directory fsync makes both durable before anything in the segment can be
     * acknowledged (one fsync per new partition fewer, at ten thousands of partitions created at once).
     */
    static SegmentLog open(
            Path dir,
            List<SegmentName> names,
            int epoch,
            long logEnd,
            IndexPolicy indexPolicy,
            long nowMs,
            FileHandleCache files)
            throws IOException {
        SegmentLog log = new SegmentLog(dir, epoch, indexPolicy, logEnd, files);
        for (int i = 0; i < names.size(); i++) {
            boolean sealed = i < names.size() - 1;
            log.segments.add(Segment.open(dir, names.get(i), indexPolicy, sealed, files));
        }
        if (log.segments.isEmpty()) {
            log.segments.add(Segment.create(dir, SegmentName.of(epoch, logEnd), indexPolicy, nowMs, files));
        }
        log.changed();
        return log;
    }

    long nextOffset() {
        return nextOffset;
    }

    Segment active() {
        return segments.get(segments.size() - 1);
    }

    /**
     * Stamps each batch's base offset and this partition's epoch in place (outside the CRC), and for a
     * LogAppendTime topic its timestamp type and max timestamp ({@link RecordBatchHeader#stampLogAppendTime}),
     * and appends them to the active segment. Either all land, or none do.
     *
     * @return the batches' headers as stamped
     * @throws IOException when nothing was written
     * @throws StorageException when a partial batch could not be cut off: the segment is in doubt and
     *         the partition must stop
     */
    List<RecordBatchHeader> write(ProducedBatches batches, long logAppendTimeMs) throws IOException {
        ByteBuffer buf = batches.buffer();
        long offset = nextOffset;
        List<RecordBatchHeader> stamped = new ArrayList<>(batches.headers().size());
        for (int i = 0; i < batches.headers().size(); i++) {
            if (logAppendTimeMs != RecordBatchHeader.NO_TIMESTAMP) {
                RecordBatchHeader.stampLogAppendTime(
                        buf, batches.starts()[i], batches.headers().get(i).sizeInBytes(), logAppendTimeMs);
            }
            RecordBatchHeader.assignOffsetAndEpoch(buf, batches.starts()[i], offset, epoch);
            RecordBatchHeader h = RecordBatchHeader.peek(buf, batches.starts()[i]);
            stamped.add(h);
            offset = h.nextOffset();
        }
        active().append(buf, stamped, batches.starts());
        nextOffset = offset;
        return stamped;
    }

    /**
     * Whether {@code incomingBytes} more must go to a new segment: past segment.bytes (or past what a
     * 32-bit index position or relative offset can address), or the active segment is older than
     * segment.ms. An empty segment never rolls.
     */
    boolean rollDue(long incomingBytes, long segmentBytes, long segmentMs, long nowMs) {
        Segment active = active();
        if (active.size() == 0) {
            return false;
        }
        boolean full = active.size() + incomingBytes > Math.min(segmentBytes, Integer.MAX_VALUE);
        boolean offsetsExhausted = nextOffset - active.baseOffset() > Integer.MAX_VALUE - 1_000_000L;
        boolean old = nowMs - active.createdMs() >= segmentMs;
        return full || offsetsExhausted || old;
    }

    /**
     * First half of a roll: fsyncs the active segment's log and refuses further appends to it, and
     * fsyncs its index too. Recovery trusts a closed segment's index when it looks sane, and an unsynced
     * one can come back torn into plausible but wrong entries (a reader then finds nothing at an offset
     * that is in the log); a deferred index fsync left a window for that, and a clean close could beat
     * it to the file.
     */
    void sealActive() throws IOException {
        Segment old = active();
        old.seal();
        old.index().flush();
        old.index().seal();
    }

    /** Second half of a roll: a new active segment at the next offset, its directory entry fsynced. */
    void startSegment(long nowMs) throws IOException {
        segments.add(Segment.create(dir, SegmentName.of(epoch, nextOffset), indexPolicy, nowMs, files));
        AtomicFile.fsyncDirectory(dir);
        changed();
    }

    /**
     * A new leader epoch begins at the log end: its first segment carries the epoch in its name, so an
     * ex-leader still holding the old active segment can never write into the new leader's file. The old
     * active segment is sealed like at a roll, or, when it holds nothing, removed (two segments with one
     * base offset would confuse readers; recovery would remove the lower epoch's anyway). The caller wrote
     * the snapshots and the leader-epoch checkpoint before.
     */
    void startEpoch(long nowMs) throws IOException {
        Segment old = active();
        if (old.name().epoch() == epoch) {
            return;
        }
        if (old.size() == 0) {
            segments.remove(segments.size() - 1);
            old.closeAndUnlink();
        } else {
            sealActive();
        }
        startSegment(nowMs);
    }

    /** Detaches the closed segments lying wholly below {@code logStartOffset} ({@link LogStartRule#segmentsWhollyBelow}). */
    List<Segment> removeWhollyBelow(long logStartOffset) {
        int n = LogStartRule.segmentsWhollyBelow(
                segments.stream().map(Segment::baseOffset).toList(), logStartOffset);
        List<Segment> below = segments.subList(0, n);
        List<Segment> removed = List.copyOf(below);
        below.clear();
        if (n > 0) {
            changed();
        }
        return removed;
    }

    /**
     * The closed segments named {@code names}, in order and consecutive, or null when the list no longer
     * holds them all (retention removed one since a cleaning pass began) or one is the active segment.
     */
    List<Segment> closedSegmentsNamed(List<SegmentName> names) {
        int first = -1;
        for (int i = 0; i < segments.size() - 1; i++) {
            if (segments.get(i).name().equals(names.get(0))) {
                first = i;
                break;
            }
        }
        if (first < 0 || first + names.size() > segments.size() - 1) {
            return null;
        }
        for (int i = 0; i < names.size(); i++) {
            if (!segments.get(first + i).name().equals(names.get(i))) {
                return null;
            }
        }
        return List.copyOf(segments.subList(first, first + names.size()));
    }

    /**
     * Puts the cleaned segment {@code name} (its files already in place) where {@code old} were. The
     * caller retires {@code old} once readers see the new list.
     */
    void replace(List<Segment> old, SegmentName name) throws IOException {
        int first = segments.indexOf(old.get(0));
        Segment cleaned = Segment.open(dir, name, indexPolicy, true, files);
        segments.subList(first, first + old.size()).clear();
        segments.add(first, cleaned);
        changed();
    }

    /** The immutable copy readers walk: valid until the next change. */
    List<Segment> readerCopy() {
        return readerCopy;
    }

    /** Bytes in every segment, the active one as of now. */
    long sizeInBytes() {
        return closedBytes + active().size();
    }

    /** Closes every segment (partition close): channels close once no send holds them; a failure is logged, the rest still close. */
    void closeAll(TopicPartition id) {
        for (Segment s : segments) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("{}: closing {} failed: {}", id, s, e.toString());
            }
        }
    }

    private void changed() {
        readerCopy = List.copyOf(segments);
        long closed = 0;
        for (int i = 0; i < segments.size() - 1; i++) {
            closed += segments.get(i).size();
        }
        closedBytes = closed;
    }
}
