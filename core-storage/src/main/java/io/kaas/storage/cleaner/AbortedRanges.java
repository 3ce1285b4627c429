package io.kaas.storage.cleaner;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.segment.HeaderCursor;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.ControlMarker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The aborted transactions of a log, read from the log itself: a header walk that notes where each
 * producer's transaction began and, at its marker, whether it aborted. The cleaner drops aborted data
 * on this evidence alone rather than on the txn-index snapshot, which a log dir may lack (Apache's
 * own dirs, a lost snapshot) and which forgets nothing it should not but cannot prove it.
 */
final class AbortedRanges {
    private AbortedRanges() {}

    /** Aborted ranges whose marker lies below {@code upTo}, in marker order. */
    static List<TxnIndexSnapshot.Aborted> scan(Path dir, List<SegmentName> segments, long upTo) throws IOException {
        List<TxnIndexSnapshot.Aborted> aborted = new ArrayList<>();
        Map<Long, Long> open = new HashMap<>();
        for (SegmentName s : segments) {
            if (s.baseOffset() >= upTo) {
                break;
            }
            try (FileChannel ch = FileChannel.open(dir.resolve(s.logFileName()), StandardOpenOption.READ)) {
                HeaderCursor cursor = new HeaderCursor(ch, 0, ch.size());
                while (cursor.next() == HeaderCursor.Framing.BATCH) {
                    RecordBatchHeader h = cursor.header();
                    if (h.baseOffset() >= upTo) {
                        return aborted;
                    }
                    if (!h.isTransactional() || !h.hasProducerId()) {
                        continue;
                    }
                    if (!h.isControl()) {
                        open.putIfAbsent(h.producerId(), h.baseOffset());
                        continue;
                    }
                    Long first = open.remove(h.producerId());
                    if (first != null && markerType(ch, cursor.position(), h.sizeInBytes()) == ControlMarker.ABORT) {
                        aborted.add(new TxnIndexSnapshot.Aborted(h.producerId(), first, h.lastOffset()));
                    }
                }
            }
        }
        return aborted;
    }

    /**
     * Whether one of the first {@code cleanable} segments lying wholly below {@code firstDirty} (cleaned before, copied
     * again by the next pass) holds a transactional or control batch: then the pass needs {@link #scan}.
     */
    static boolean anyTransactional(Path dir, List<SegmentName> all, int cleanable, long firstDirty)
            throws IOException {
        for (int i = 0; i < cleanable && all.get(i + 1).baseOffset() <= firstDirty; i++) {
            try (FileChannel ch = FileChannel.open(dir.resolve(all.get(i).logFileName()), StandardOpenOption.READ)) {
                HeaderCursor cursor = new HeaderCursor(ch, 0, ch.size());
                while (cursor.next() == HeaderCursor.Framing.BATCH) {
                    if (cursor.header().isTransactional() || cursor.header().isControl()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static short markerType(FileChannel ch, long position, int size) throws IOException {
        ByteBuffer batch = ByteBuffer.allocate(size);
        while (batch.hasRemaining()) {
            if (ch.read(batch, position + batch.position()) < 0) {
                break;
            }
        }
        batch.flip();
        return ControlMarker.type(batch, 0);
    }

    /** The ranges of {@code aborted} that reach into {@code [from, to)}. */
    static List<TxnIndexSnapshot.Aborted> overlapping(List<TxnIndexSnapshot.Aborted> aborted, long from, long to) {
        return aborted.stream()
                .filter(a -> a.lastOffset() >= from && a.firstOffset() < to)
                .toList();
    }
}
