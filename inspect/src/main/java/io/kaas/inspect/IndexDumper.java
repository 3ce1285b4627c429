package io.kaas.inspect;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Dumps a {@code .index} file and checks each entry against the log beside it: an entry is right
 * when its offset falls inside the batch at its position (Apache writes the batch's last offset,
 * the original its base offset; both are accepted). Read-only: the index is never opened for writing.
 */
final class IndexDumper {
    private final DumpOptions options;
    private final DumpOutput out;

    IndexDumper(DumpOptions options, DumpOutput out) {
        this.options = options;
        this.out = out;
    }

    int dump(Path index) throws IOException {
        SegmentName name = SegmentName.parse(index.getFileName().toString())
                .orElseThrow(() -> new IOException(
                        index + ": not a segment index name ({epoch:08x}-{base:020d}.index or {base:020d}.index)"));
        Path log = index.resolveSibling(name.logFileName());
        long fileSize = Files.size(index);
        IndexEntry[] entries = IndexFileFormat.readAll(index, name.baseOffset());
        int problems = 0;
        if (fileSize % IndexFileFormat.ENTRY_SIZE != 0) {
            problems++;
            out.emit(new Events.Message(
                    "warning",
                    index,
                    index + ":" + (fileSize - fileSize % IndexFileFormat.ENTRY_SIZE) + ": "
                            + (fileSize % IndexFileFormat.ENTRY_SIZE) + " trailing bytes are not a whole entry",
                    true));
        }
        if (entries.length == 0) {
            out.emit(new Events.Message("empty", index, index + " is empty.", false));
            return problems;
        }
        if (!Files.isRegularFile(log)) {
            out.emit(new Events.Message(
                    "warning", index, log + ": no log beside the index; entries are not checked", true));
        }
        long logSize = Files.isRegularFile(log) ? Files.size(log) : Long.MAX_VALUE;
        if (options.indexSanityOnly()) {
            Optional<String> bad = IndexFileFormat.sanityCheck(index, entries, logSize, name.baseOffset());
            if (bad.isPresent()) {
                out.emit(new Events.Message("sanity_failed", index, bad.get(), true));
                return problems + 1;
            }
            out.emit(new Events.Message("sanity_passed", index, index + " passed sanity check.", false));
            return problems;
        }
        try (FileChannel ch = Files.isRegularFile(log) ? FileChannel.open(log, StandardOpenOption.READ) : null) {
            for (int i = 0; i < entries.length; i++) {
                IndexEntry e = entries[i];
                if (i > 0 && e.offset() == name.baseOffset()) {
                    break; // a preallocated, zero-filled tail of entries (Apache's crash leftovers)
                }
                if (!options.verifyIndexOnly()) {
                    out.emit(new Events.IndexLine(index, i, e.offset(), e.position()));
                }
                if (ch != null && !pointsInside(ch, e)) {
                    problems++;
                    out.emit(mismatch(ch, index, i, e));
                }
            }
        }
        return problems;
    }

    private static boolean pointsInside(FileChannel ch, IndexEntry e) throws IOException {
        RecordBatchHeader h = headerAt(ch, e.position());
        return h != null && h.baseOffset() <= e.offset() && e.offset() <= h.lastOffset();
    }

    private static Events.IndexMismatch mismatch(FileChannel ch, Path index, int i, IndexEntry e) throws IOException {
        RecordBatchHeader h = headerAt(ch, e.position());
        return new Events.IndexMismatch(
                index, i, e.offset(), h == null ? -1 : h.baseOffset(), h == null ? -1 : h.lastOffset(), e.position());
    }

    static RecordBatchHeader headerAt(FileChannel ch, long position) throws IOException {
        if (position < 0 || ch.size() - position < RecordBatchHeader.HEADER_SIZE) {
            return null;
        }
        ByteBuffer head = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
        long at = position;
        while (head.hasRemaining()) {
            int r = ch.read(head, at);
            if (r < 0) {
                return null;
            }
            at += r;
        }
        if (head.get(RecordBatchHeader.MAGIC_OFFSET) != RecordBatchHeader.MAGIC_V2) {
            return null;
        }
        return RecordBatchHeader.peek(head, 0);
    }
}
