package io.kaas.recovery;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.ScannedBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rewrites a segment's {@code .index} from its log with the broker's own rule ({@link IndexPolicy})
 * and encoding ({@link IndexFileFormat#encode}), so the bytes are the ones the broker writes. Only the valid
 * prefix of the log is indexed (the part {@link BatchScanner} accepts); the log itself is never touched.
 * The new index is written with {@link IndexFileFormat#writeAtomically}, as recovery writes it.
 */
public final class IndexRebuilder {
    private final IndexPolicy policy;

    public IndexRebuilder(IndexPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param changed     the index on disk differs from the computed one (or is missing)
     * @param written     the new index was written
     * @param difference  what differs, null when nothing does
     * @param invalidTail bytes after the log's valid part (recover would cut them), 0 when none
     */
    public record Result(
            SegmentFile segment,
            int entries,
            boolean changed,
            boolean written,
            String difference,
            long validBytes,
            long invalidTail) {}

    /** The entries the broker would write for this log. */
    public List<IndexEntry> compute(SegmentFile segment, long[] validAndSize) throws IOException {
        List<IndexEntry> entries = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(segment.log(), StandardOpenOption.READ)) {
            BatchScanner scanner = BatchScanner.ofWholeFile(ch, segment.log(), segment.baseOffset());
            for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                IndexEntry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
                if (policy.due(b.position(), last)) {
                    entries.add(new IndexEntry(b.header().lastOffset(), (int) b.position()));
                }
            }
            validAndSize[0] = scanner.position();
            validAndSize[1] = ch.size();
        }
        return entries;
    }

    /** Compares the index on disk with the computed one; writes the computed one when {@code write} and they differ. */
    public Result rebuild(SegmentFile segment, boolean write) {
        try {
            long[] validAndSize = new long[2];
            List<IndexEntry> entries = compute(segment, validAndSize);
            byte[] expected = IndexFileFormat.encode(segment.baseOffset(), entries);
            String difference = difference(segment, expected);
            boolean written = false;
            if (difference != null && write) {
                IndexFileFormat.writeAtomically(segment.index(), segment.baseOffset(), entries);
                written = true;
            }
            return new Result(
                    segment,
                    entries.size(),
                    difference != null,
                    written,
                    difference,
                    validAndSize[0],
                    validAndSize[1] - validAndSize[0]);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, segment.log() + ": " + PartitionSegments.describe(e), e);
        }
    }

    private static String difference(SegmentFile segment, byte[] expected) throws IOException {
        Path index = segment.index();
        if (!Files.exists(index)) {
            return "missing (" + expected.length / IndexFileFormat.ENTRY_SIZE + " entries expected)";
        }
        byte[] actual = Files.readAllBytes(index);
        if (Arrays.equals(actual, expected)) {
            return null;
        }
        int i = Arrays.mismatch(actual, expected) / IndexFileFormat.ENTRY_SIZE;
        return actual.length / IndexFileFormat.ENTRY_SIZE + " entries (" + actual.length + " bytes) on disk, "
                + expected.length / IndexFileFormat.ENTRY_SIZE + " expected; first difference at entry " + i
                + " (byte " + (long) i * IndexFileFormat.ENTRY_SIZE + "): on disk "
                + describe(actual, i, segment.baseOffset())
                + ", expected " + describe(expected, i, segment.baseOffset());
    }

    private static String describe(byte[] index, int entry, long base) {
        int at = entry * IndexFileFormat.ENTRY_SIZE;
        if (at + IndexFileFormat.ENTRY_SIZE > index.length) {
            return index.length > at ? (index.length - at) + " stray bytes" : "nothing";
        }
        ByteBuffer b = ByteBuffer.wrap(index, at, IndexFileFormat.ENTRY_SIZE);
        return "(offset " + (base + b.getInt()) + ", position " + b.getInt() + ")";
    }
}
