package io.kaas.storage.segment;

import io.kaas.storage.StorageException;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The {@code .index} file: 8-byte big-endian entries (i32 offset relative to the segment's base,
 * i32 byte position in the log), offsets and positions strictly increasing. Sparse: one entry per
 * {@link IndexPolicy#intervalBytes()} of log. Not fsynced on the append path: it is rebuilt from the
 * log by recovery, so only the log carries the acks=all promise. Entries live in memory too, so a
 * lookup never reads the file.
 *
 * <p>Not thread-safe for writers (holds Partition.lock); {@link #lookup} may run concurrently with
 * {@link #append} because entries are published through a volatile count after the arrays are filled.
 */
public final class SparseIndex implements AutoCloseable {
    public static final int ENTRY_SIZE = 8;

    private final Path file;
    private final long baseOffset;
    private final FileChannel channel;
    private volatile int[] relOffsets;
    private volatile int[] positions;
    private volatile int count;

    private SparseIndex(Path file, long baseOffset, FileChannel channel, int[] relOffsets, int[] positions, int count) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.relOffsets = relOffsets;
        this.positions = positions;
        this.count = count;
    }

    /** Opens (creating if missing) for appends; existing entries are loaded as they are. */
    public static SparseIndex open(Path file, long baseOffset) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            Entries e = readEntries(ch, baseOffset);
            ch.truncate((long) e.count * ENTRY_SIZE);
            return new SparseIndex(file, baseOffset, ch, e.rel, e.pos, e.count);
        } catch (IOException | RuntimeException ex) {
            ch.close();
            throw ex;
        }
    }

    /** Creates an empty index, replacing any file there. */
    public static SparseIndex create(Path file, long baseOffset) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        return new SparseIndex(file, baseOffset, ch, new int[16], new int[16], 0);
    }

    /**
     * The bytes of an index holding {@code entries}, exactly as {@link #append} writes them one by
     * one (so a rebuilt index compares byte for byte with the one the broker wrote).
     */
    public static byte[] encode(long baseOffset, List<IndexEntry> entries) {
        ByteBuffer b = ByteBuffer.allocate(entries.size() * ENTRY_SIZE);
        for (IndexEntry e : entries) {
            b.putInt(relative(e.offset(), baseOffset, null)).putInt(e.position());
        }
        return b.array();
    }

    /**
     * Replaces the index file with one holding {@code entries}, atomically and durably (tmp, fsync,
     * rename, directory fsync): a power cut leaves the old index or the new one, never a mix of both
     * that would point reads at wrong positions. The writer recovery and rebuild-index share.
     */
    public static void writeAtomically(Path file, long baseOffset, List<IndexEntry> entries) throws IOException {
        AtomicFile.write(file, encode(baseOffset, entries));
    }

    private static int relative(long offset, long baseOffset, Path file) {
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) {
            throw new StorageException(StorageException.Kind.IO, (file == null ? "index" : file.toString())
                    + ": offset " + offset + " does not fit an index based at " + baseOffset);
        }
        return (int) rel;
    }

    /** Reads an index file's entries without opening it for writing; a trailing partial entry is ignored. */
    public static IndexEntry[] readAll(Path file, long baseOffset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Entries e = readEntries(ch, baseOffset);
            IndexEntry[] out = new IndexEntry[e.count];
            for (int i = 0; i < e.count; i++) {
                out[i] = new IndexEntry(baseOffset + e.rel[i], e.pos[i]);
            }
            return out;
        }
    }

    private record Entries(int[] rel, int[] pos, int count) {}

    private static Entries readEntries(FileChannel ch, long baseOffset) throws IOException {
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
        return new Entries(rel, pos, count);
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

    /** Appends an entry (holds Partition.lock). */
    public void append(long offset, int position) throws IOException {
        int rel = relative(offset, baseOffset, file);
        int n = count;
        if (n > 0 && (rel <= relOffsets[n - 1] || position <= positions[n - 1])) {
            throw new IllegalStateException(file + ": index entries must increase: (" + offset + ", " + position + ") after ("
                    + (baseOffset + relOffsets[n - 1]) + ", " + positions[n - 1] + ")");
        }
        ByteBuffer buf = ByteBuffer.allocate(ENTRY_SIZE).putInt(rel).putInt(position).flip();
        long at = (long) n * ENTRY_SIZE;
        while (buf.hasRemaining()) {
            at += channel.write(buf, at);
        }
        if (n == relOffsets.length) {
            relOffsets = Arrays.copyOf(relOffsets, n * 2);
            positions = Arrays.copyOf(positions, n * 2);
        }
        relOffsets[n] = rel;
        positions[n] = position;
        count = n + 1;
    }

    /** Largest entry with offset ≤ target; (base, 0) when none is. */
    public IndexEntry lookup(long targetOffset) {
        int n = count;
        int[] rel = relOffsets;
        int[] pos = positions;
        long target = targetOffset - baseOffset;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (rel[mid] <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? new IndexEntry(baseOffset, 0) : new IndexEntry(baseOffset + rel[found], pos[found]);
    }

    public IndexEntry lastEntry() {
        int n = count;
        return n == 0 ? null : new IndexEntry(baseOffset + relOffsets[n - 1], positions[n - 1]);
    }

    public int entryCount() {
        return count;
    }

    public IndexEntry entry(int i) {
        return new IndexEntry(baseOffset + relOffsets[i], positions[i]);
    }

    /** Drops entries pointing at or past {@code position} (holds Partition.lock). */
    public void truncateToPosition(long position) throws IOException {
        int n = count;
        while (n > 0 && positions[n - 1] >= position) {
            n--;
        }
        count = n;
        channel.truncate((long) n * ENTRY_SIZE);
    }

    /** Drops every entry. */
    public void clear() throws IOException {
        count = 0;
        channel.truncate(0);
    }

    public void flush() throws IOException {
        channel.force(true);
    }

    public Path file() {
        return file;
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long sizeInBytes() {
        return (long) count * ENTRY_SIZE;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
