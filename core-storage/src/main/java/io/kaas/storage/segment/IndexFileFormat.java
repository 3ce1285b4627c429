package io.kaas.storage.segment;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * The {@code .index} file format, Apache's offset index layout byte for byte (so its
 * {@code kafka-dump-log --verify-index-only} reads our files): a run of 8-byte big-endian entries and
 * nothing else, no header, no trailer.
 *
 * <pre>
 * RelativeOffset => int32   offset - segment base offset (the last offset of the batch at Position)
 * Position       => int32   byte position of that batch's start in the segment's .log
 * </pre>
 *
 * Offsets and positions strictly increase. A trailing partial entry (a torn write) is ignored by every
 * reader. The file is a hint, rebuilt from the log after a crash, so it is written without an fsync on
 * the append path; the one durable writer is {@link #writeAtomically} (recovery and rebuild-index).
 *
 * <p>Stateless: every method is safe from any thread (each opens and closes what it reads).
 */
public final class IndexFileFormat {
    /** RelativeOffset (4) + Position (4). */
    public static final int ENTRY_SIZE = 8;

    private IndexFileFormat() {}

    /**
     * The bytes of an index holding {@code entries}, exactly as {@link SparseIndex#append} writes them one
     * by one (so a rebuilt index compares byte for byte with the one the broker wrote).
     */
    public static byte[] encode(long baseOffset, List<IndexEntry> entries) {
        ByteBuffer b = ByteBuffer.allocate(entries.size() * ENTRY_SIZE);
        for (IndexEntry e : entries) {
            b.putInt(relative(e.offset(), baseOffset, null)).putInt(e.position());
        }
        return b.array();
    }

    /** One entry's bytes, ready to write. */
    static ByteBuffer encodeEntry(int relativeOffset, int position) {
        return ByteBuffer.allocate(ENTRY_SIZE)
                .putInt(relativeOffset)
                .putInt(position)
                .flip();
    }

    /**
     * Replaces the index file with one holding {@code entries}, atomically and durably (tmp, fsync,
     * rename, directory fsync): a power cut leaves the old index or the new one, never a mix of both
     * that would point reads at wrong positions. The writer recovery and rebuild-index share.
     */
    public static void writeAtomically(Path file, long baseOffset, List<IndexEntry> entries) throws IOException {
        AtomicFile.write(file, encode(baseOffset, entries));
    }

    /** {@code offset - baseOffset} as the int32 an entry holds; an offset that does not fit fails naming {@code file}. */
    static int relative(long offset, long baseOffset, Path file) {
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    (file == null ? "index" : file.toString()) + ": offset " + offset
                            + " does not fit an index based at " + baseOffset);
        }
        return (int) rel;
    }

    /** Reads an index file's entries without opening it for writing; a trailing partial entry is ignored. */
    public static IndexEntry[] readAll(Path file, long baseOffset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Decoded e = read(ch);
            IndexEntry[] out = new IndexEntry[e.count];
            for (int i = 0; i < e.count; i++) {
                out[i] = new IndexEntry(baseOffset + e.rel[i], e.pos[i]);
            }
            return out;
        }
    }

    /** Whole entries read from a channel: {@code count} of them, in arrays with room for appends. */
    record Decoded(int[] rel, int[] pos, int count) {}

    /** Reads every whole entry of {@code ch} from byte 0; a trailing partial entry is left out. */
    static Decoded read(FileChannel ch) throws IOException {
        long size = ch.size();
        int n = (int) Math.min(size / ENTRY_SIZE, Integer.MAX_VALUE / ENTRY_SIZE);
        ByteBuffer buf = ByteBuffer.allocate(n * ENTRY_SIZE);
        while (buf.hasRemaining()) {
            if (ch.read(buf, buf.position()) < 0) {
                break;
            }
        }
        buf.flip();
        int[] rel = new int[Math.max(16, n)];
        int[] pos = new int[Math.max(16, n)];
        int count = 0;
        while (buf.remaining() >= ENTRY_SIZE) {
            rel[count] = buf.getInt();
            pos[count] = buf.getInt();
            count++;
        }
        return new Decoded(rel, pos, count);
    }

    /**
     * The checks made before an index is trusted (partition open, verify, dump-segment): offsets at or
     * above the base, positions inside the log's {@code logSize} bytes, both strictly increasing.
     * Returns the first problem as {@code file:byte: what}, or empty. Reads nothing.
     */
    public static Optional<String> sanityCheck(Path file, IndexEntry[] entries, long logSize, long baseOffset) {
        for (int i = 0; i < entries.length; i++) {
            IndexEntry e = entries[i];
            long at = (long) i * ENTRY_SIZE;
            if (e.offset() < baseOffset) {
                return Optional.of(file + ":" + at + ": entry " + i + " has offset " + e.offset()
                        + ", below the segment's base offset " + baseOffset);
            }
            if (e.position() < 0 || e.position() >= logSize) {
                return Optional.of(file + ":" + at + ": entry " + i + " points at log position " + e.position()
                        + ", outside the log's " + logSize + " bytes");
            }
            if (i > 0 && (e.offset() <= entries[i - 1].offset() || e.position() <= entries[i - 1].position())) {
                return Optional.of(file + ":" + at + ": entry " + i + " (offset " + e.offset() + ", position "
                        + e.position() + ") does not increase over entry " + (i - 1) + " (offset "
                        + entries[i - 1].offset() + ", position " + entries[i - 1].position() + ")");
            }
        }
        return Optional.empty();
    }
}
