package io.kaas.storage.segment;

import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.FileHandleCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment's {@code .index} ({@link IndexFileFormat}): its entries kept in memory ({@link IndexEntries})
 * and in step with the file. Sparse: one entry per {@link IndexPolicy#intervalBytes()} of log. Not fsynced
 * on the append path: it is rebuilt from the log by recovery, so only the log carries the acks=all promise.
 * A lookup never reads the file; a closed segment's entries are read on its first lookup and dropped again
 * when the segment goes cold (its log evicted from the {@link FileHandleCache}), so idle partitions cost
 * no index memory. The file itself is opened through the cache for writes only.
 *
 * <p>Writers ({@link #append}, {@link #truncateToPosition}, {@link #clear}, {@link #seal}) hold
 * Partition.lock; lookups run from any thread, concurrently with {@link #append} ({@link IndexEntries}
 * publishes each entry whole). Loading and dropping the entries synchronize on this index.
 */
public final class SparseIndex implements AutoCloseable {

    private final Path file;
    private final long baseOffset;
    /** The file for appends and truncation; null for a sealed index, which is only read. */
    private final CachedFile channel;

    private volatile IndexEntries entries;
    /** False for a sealed index whose entries are not in memory (read on the next lookup). */
    private volatile boolean loaded;
    /** No more writes: the entries may be dropped from memory and read again. */
    private volatile boolean sealed;

    private SparseIndex(Path file, long baseOffset, CachedFile channel, IndexEntries entries, boolean loaded) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.entries = entries;
        this.loaded = loaded;
        this.sealed = channel == null;
    }

    /**
     * Opens (creating if missing) for appends: the existing entries are loaded as they are, a trailing
     * partial entry is cut, and the file is closed again; {@code cache} reopens it for the next write.
     */
    public static SparseIndex open(Path file, long baseOffset, FileHandleCache cache) throws IOException {
        IndexFileFormat.Decoded e;
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            e = IndexFileFormat.read(ch);
            ch.truncate((long) e.count() * IndexFileFormat.ENTRY_SIZE);
        }
        return new SparseIndex(
                file,
                baseOffset,
                writable(file, cache),
                new IndexEntries(baseOffset, e.rel(), e.pos(), e.count()),
                true);
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
        return new SparseIndex(
                file,
                baseOffset,
                writable(file, cache),
                new IndexEntries(baseOffset, new int[16], new int[16], 0),
                true);
    }

    /** {@link #create} with a cache of its own (tools and tests). */
    public static SparseIndex create(Path file, long baseOffset) throws IOException {
        return create(file, baseOffset, new FileHandleCache(FileHandleCache.defaultCeiling()));
    }

    /** A closed segment's index: read-only, nothing read until the first lookup. */
    static SparseIndex sealed(Path file, long baseOffset) {
        return new SparseIndex(file, baseOffset, null, IndexEntries.none(baseOffset), false);
    }

    private static CachedFile writable(Path file, FileHandleCache cache) {
        return cache.file(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The index file's channel if it is open now (see {@link CachedFile#acquireIfOpen}); null otherwise. */
    public CachedFile.Handle acquireIfOpen() {
        return channel == null ? null : channel.acquireIfOpen();
    }

    /** Appends an entry: the file first, then memory (holds Partition.lock). */
    public void append(long offset, int position) throws IOException {
        requireWritable();
        int rel = IndexFileFormat.relative(offset, baseOffset, file);
        IndexEntries e = entries;
        e.requireAfterLast(file, rel, position);
        ByteBuffer buf = IndexFileFormat.encodeEntry(rel, position);
        long at = (long) e.count() * IndexFileFormat.ENTRY_SIZE;
        try (CachedFile.Handle h = channel.acquire()) {
            while (buf.hasRemaining()) {
                at += h.channel().write(buf, at);
            }
        }
        e.add(rel, position);
    }

    /** Largest entry with offset ≤ target; (base, 0) when none is. */
    public IndexEntry lookup(long targetOffset) {
        ensureLoaded();
        return entries.floor(targetOffset);
    }

    /**
     * The last entry whose position is in {@code (after, atMost]} and whose offset (the last offset of
     * the batch starting there) is below {@code offsetBelow}, or null. An entry's position is a batch
     * start, so every batch from {@code after} (a batch start) up to it lies wholly below it and holds
     * only offsets below {@code offsetBelow}: a read may take them without reading their headers.
     */
    public IndexEntry lastBatchStartWithin(long after, long atMost, long offsetBelow) {
        ensureLoaded();
        return entries.lastBatchStartWithin(after, atMost, offsetBelow);
    }

    public IndexEntry lastEntry() {
        ensureLoaded();
        return entries.last();
    }

    public int entryCount() {
        ensureLoaded();
        return entries.count();
    }

    public IndexEntry entry(int i) {
        ensureLoaded();
        return entries.entry(i);
    }

    /** Drops entries pointing at or past {@code position} (holds Partition.lock). */
    public void truncateToPosition(long position) throws IOException {
        requireWritable();
        int n = entries.truncateToPosition(position);
        try (CachedFile.Handle h = channel.acquire()) {
            h.channel().truncate((long) n * IndexFileFormat.ENTRY_SIZE);
        }
    }

    /** Drops every entry. */
    public void clear() throws IOException {
        requireWritable();
        entries.clear();
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
                IndexEntry[] all = IndexFileFormat.readAll(file, baseOffset);
                int[] rel = new int[all.length];
                int[] pos = new int[all.length];
                for (int i = 0; i < all.length; i++) {
                    rel[i] = (int) (all[i].offset() - baseOffset);
                    pos[i] = all[i].position();
                }
                entries = new IndexEntries(baseOffset, rel, pos, all.length);
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
            entries = IndexEntries.none(baseOffset);
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
        return (long) entries.count() * IndexFileFormat.ENTRY_SIZE;
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.retire();
        }
    }
}
