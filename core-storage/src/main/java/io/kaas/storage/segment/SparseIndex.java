package io.kaas.storage.segment;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
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
 * lookup never reads the file; a closed segment's are read on its first lookup and dropped again when
 * the segment goes cold (its log evicted from the {@link FileHandleCache}), so idle partitions cost
 * no index memory. The file itself is opened through the cache for writes only.
 *
 * <p>Not thread-safe for writers (holds Partition.lock); {@link #lookup} may run concurrently with
 * {@link #append} because entries are published through a volatile count after the arrays are filled.
 */
public final class SparseIndex implements AutoCloseable {
    public static final int ENTRY_SIZE = 8;
    private static final int[] NONE = new int[0];

    private final Path file;
    private final long baseOffset;
    /** The file for appends and truncation; null for a sealed index, which is only read. */
    private final CachedFile channel;

    private volatile int[] relOffsets;
    private volatile int[] positions;
    private volatile int count;
    /** False for a sealed index whose entries are not in memory (read on the next lookup). */
    private volatile boolean loaded;
    /** No more writes: the entries may be dropped from memory and read again. */
    private volatile boolean sealed;

    private SparseIndex(
            Path file,
            long baseOffset,
            CachedFile channel,
            int[] relOffsets,
            int[] positions,
            int count,
            boolean loaded) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.relOffsets = relOffsets;
        this.positions = positions;
        this.count = count;
        this.loaded = loaded;
        this.sealed = channel == null;
    }

    /**
     * Opens (creating if missing) for appends: the existing entries are loaded as they are, a trailing
     * partial entry is cut, and the file is closed again; {@code cache} reopens it for the next write.
     */
    public static SparseIndex open(Path file, long baseOffset, FileHandleCache cache) throws IOException {
        Entries e;
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            e = readEntries(ch, baseOffset);
            ch.truncate((long) e.count * ENTRY_SIZE);
        }
        return new SparseIndex(file, baseOffset, writable(file, cache), e.rel, e.pos, e.count, true);
    }

    /** {@link #open} with a cache of its own (tools and tests). */
    public static SparseIndex open(Path file, long baseOffset) throws IOException {
        return open(file, baseOffset, new FileHandleCache(FileHandleCache.defaultCeiling()));
    }

    /** Creates an empty index, replacing any file there. */
    public static SparseIndex create(Path file, long baseOffset, FileHandleCache cache) throws IOException {
        try (FileChannel ch = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            // created empty; appends go through the cache
        }
        return new SparseIndex(file, baseOffset, writable(file, cache), new int[16], new int[16], 0, true);
    }

    /** {@link #create} with a cache of its own (tools and tests). */
    public static SparseIndex create(Path file, long baseOffset) throws IOException {
        return create(file, baseOffset, new FileHandleCache(FileHandleCache.defaultCeiling()));
    }

    /** A closed segment's index: read-only, nothing read until the first lookup. */
    static SparseIndex sealed(Path file, long baseOffset) {
        return new SparseIndex(file, baseOffset, null, NONE, NONE, 0, false);
    }

    private static CachedFile writable(Path file, FileHandleCache cache) {
        return cache.file(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
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

    /** The index file's channel if it is open now (see {@link CachedFile#acquireIfOpen}); null otherwise. */
    public CachedFile.Handle acquireIfOpen() {
        return channel == null ? null : channel.acquireIfOpen();
    }

    /** Appends an entry (holds Partition.lock). */
    public void append(long offset, int position) throws IOException {
        requireWritable();
        int rel = relative(offset, baseOffset, file);
        int n = count;
        if (n > 0 && (rel <= relOffsets[n - 1] || position <= positions[n - 1])) {
            throw new IllegalStateException(file + ": index entries must increase: (" + offset + ", " + position
                    + ") after (" + (baseOffset + relOffsets[n - 1]) + ", " + positions[n - 1] + ")");
        }
        ByteBuffer buf =
                ByteBuffer.allocate(ENTRY_SIZE).putInt(rel).putInt(position).flip();
        long at = (long) n * ENTRY_SIZE;
        try (CachedFile.Handle h = channel.acquire()) {
            while (buf.hasRemaining()) {
                at += h.channel().write(buf, at);
            }
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
        ensureLoaded();
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

    /**
     * The last entry whose position is in {@code (after, atMost]} and whose offset (the last offset of
     * the batch starting there) is below {@code offsetBelow}, or null. An entry's position is a batch
     * start, so every batch from {@code after} (a batch start) up to it lies wholly below it and holds
     * only offsets below {@code offsetBelow}: a read may take them without reading their headers.
     */
    public IndexEntry lastBatchStartWithin(long after, long atMost, long offsetBelow) {
        ensureLoaded();
        int n = count;
        int[] rel = relOffsets;
        int[] pos = positions;
        long relBelow = offsetBelow - baseOffset;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (pos[mid] <= atMost && rel[mid] < relBelow) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 || pos[found] <= after ? null : new IndexEntry(baseOffset + rel[found], pos[found]);
    }

    public IndexEntry lastEntry() {
        ensureLoaded();
        int n = count;
        return n == 0 ? null : new IndexEntry(baseOffset + relOffsets[n - 1], positions[n - 1]);
    }

    public int entryCount() {
        ensureLoaded();
        return count;
    }

    public IndexEntry entry(int i) {
        ensureLoaded();
        return new IndexEntry(baseOffset + relOffsets[i], positions[i]);
    }

    /** Drops entries pointing at or past {@code position} (holds Partition.lock). */
    public void truncateToPosition(long position) throws IOException {
        requireWritable();
        int n = count;
        while (n > 0 && positions[n - 1] >= position) {
            n--;
        }
        count = n;
        try (CachedFile.Handle h = channel.acquire()) {
            h.channel().truncate((long) n * ENTRY_SIZE);
        }
    }

    /** Drops every entry. */
    public void clear() throws IOException {
        requireWritable();
        count = 0;
        try (CachedFile.Handle h = channel.acquire()) {
            h.channel().truncate(0);
        }
    }

    /**
     * fsync (a sealed index has nothing unsynced: roll fsynced it). Through whichever descriptor the
     * cache has open: fsync covers the file's dirty pages whichever descriptor wrote them, and the index
     * is rebuilt from the log by recovery anyway.
     */
    public void flush() throws IOException {
        if (sealed) {
            return;
        }
        try (CachedFile.Handle h = channel.acquire()) {
            h.channel().force(true);
        }
    }

    /** Roll, after {@link #flush}: no more writes, so the file is let go of; the entries stay until evicted. */
    public void seal() {
        sealed = true;
        if (channel != null) {
            channel.retire();
        }
    }

    private void requireWritable() {
        if (sealed) {
            throw new IllegalStateException(file + " belongs to a closed segment");
        }
    }

    private void ensureLoaded() {
        if (loaded) {
            return;
        }
        synchronized (this) {
            if (loaded) {
                return;
            }
            try {
                IndexEntry[] all = readAll(file, baseOffset);
                int[] rel = new int[all.length];
                int[] pos = new int[all.length];
                for (int i = 0; i < all.length; i++) {
                    rel[i] = (int) (all[i].offset() - baseOffset);
                    pos[i] = all[i].position();
                }
                relOffsets = rel;
                positions = pos;
                count = all.length;
            } catch (IOException e) {
                // The index is a hint: without it a lookup scans the log from byte 0, and the next one tries again.
                return;
            }
            loaded = true;
        }
    }

    /**
     * Loads the entries now and keeps them (empty if the file cannot be read: lookups then scan the log
     * from byte 0), so that a lookup never reads the file again: the cleaner is about to rename a new
     * index over it while readers may still use this segment's old log.
     */
    public void loadForGood() {
        ensureLoaded();
        synchronized (this) {
            loaded = true;
        }
    }

    /**
     * Drops a sealed index's entries from memory (its log was evicted: the segment is cold); the next
     * lookup reads them again. The active index keeps its entries. A lookup racing with this sees no
     * entries and scans from byte 0: slower, never wrong.
     */
    void unloadIfSealed() {
        if (!sealed) {
            return;
        }
        synchronized (this) {
            loaded = false;
            count = 0;
            relOffsets = NONE;
            positions = NONE;
        }
    }

    public Path file() {
        return file;
    }

    /** Whether the entries are in memory (tests of cold indexes). */
    boolean isLoaded() {
        return loaded;
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long sizeInBytes() {
        ensureLoaded();
        return (long) count * ENTRY_SIZE;
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.retire();
        }
    }
}
