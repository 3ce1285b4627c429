package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * One {@code .log} + {@code .index} pair. The log holds v2 batches exactly as the client sent them
 * (baseOffset and partitionLeaderEpoch assigned); the index is sparse and rebuildable.
 *
 * <p>Neither file is held open: the log is a {@link CachedFile} of the engine's {@link FileHandleCache},
 * opened on demand and closed by eviction when idle, except while it holds bytes not yet fsynced
 * (an fsync must go through a descriptor that saw every write, or a writeback error could go
 * unreported). A sealed segment's index entries are read on the first lookup and dropped again when
 * its log is evicted.
 *
 * <p>Writers hold Partition.lock. Readers use positional reads and only look at bytes below
 * {@link #size()}, which is published after the bytes are written, so they never see a partial batch.
 */
public final class Segment implements AutoCloseable {
    private final Path logFile;
    private final SegmentName name;
    private final CachedFile log;
    private final FileHandleCache cache;
    /** An fsync eviction ran for this log failed: every later flush fails with it. */
    private volatile IOException evictionSyncFailure;

    private final SparseIndex index;
    private final IndexPolicy indexPolicy;
    private final long createdMs;
    private volatile long size;
    /** Bytes known fsynced: the log channel may be evicted only when this reaches {@link #size}. */
    private volatile long durableSize;
    /** Largest batch max timestamp and the base offset of its batch; -1 until known. */
    private volatile long maxTimestamp = RecordBatchHeader.NO_TIMESTAMP;

    private volatile long offsetOfMaxTimestamp = -1;
    private volatile boolean timestampsKnown;
    /** Set once roll has fsynced this segment (or it was opened as a closed one); it takes no more appends. */
    private volatile boolean sealed;

    private Segment(
            Path dir,
            SegmentName name,
            FileHandleCache cache,
            IndexPolicy indexPolicy,
            SparseIndex index,
            long size,
            long createdMs,
            boolean timestampsKnown,
            boolean sealed) {
        this.logFile = dir.resolve(name.logFileName());
        this.name = name;
        this.index = index;
        this.indexPolicy = indexPolicy;
        this.size = size;
        this.durableSize = size;
        this.createdMs = createdMs;
        this.timestampsKnown = timestampsKnown;
        this.sealed = sealed;
        this.cache = cache;
        this.log = cache.file(logFile, new LogOwner(), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** What eviction must know of the log: unsynced bytes are fsynced through the channel that wrote them. */
    private final class LogOwner implements CachedFile.Owner {
        @Override
        public boolean isClean() {
            return durableSize >= size;
        }

        @Override
        public void syncBeforeClose(FileChannel channel) throws IOException {
            long covered = size;
            try {
                channel.force(false);
            } catch (IOException e) {
                // The next flush must fail, not fsync a fresh descriptor that may not hear of the lost pages.
                evictionSyncFailure = e;
                throw e;
            }
            durableSize = Math.max(durableSize, covered);
        }

        @Override
        public void evicted() {
            index.unloadIfSealed();
        }
    }

    /** Creates empty log and index files (fails if the log exists). The caller fsyncs the directory. */
    public static Segment create(Path dir, SegmentName name, IndexPolicy policy, long nowMs, FileHandleCache cache)
            throws IOException {
        Files.createFile(dir.resolve(name.logFileName()));
        SparseIndex index = SparseIndex.create(dir.resolve(name.indexFileName()), name.baseOffset(), cache);
        return new Segment(dir, name, cache, policy, index, 0, nowMs, true, false);
    }

    /** {@link #create} with a cache of its own (tools and tests that hold a few segments). */
    public static Segment create(Path dir, SegmentName name, IndexPolicy policy, long nowMs) throws IOException {
        return create(dir, name, policy, nowMs, new FileHandleCache(FileHandleCache.defaultCeiling()));
    }

    /**
     * Opens an existing, already recovered segment without holding any file: a {@code sealed} one
     * (every segment but the last) reads its index on first use; the active one loads it now, cutting a
     * trailing partial entry.
     */
    public static Segment open(Path dir, SegmentName name, IndexPolicy policy, boolean sealed, FileHandleCache cache)
            throws IOException {
        Path logFile = dir.resolve(name.logFileName());
        Path indexFile = dir.resolve(name.indexFileName());
        long size = Files.size(logFile);
        SparseIndex index = sealed
                ? SparseIndex.sealed(indexFile, name.baseOffset())
                : SparseIndex.open(indexFile, name.baseOffset(), cache);
        // segment.ms counts wall-clock time: a segment created by a roll is dated by the clock, a reopened one
        // by its file's last write. Never by client timestamps: Kafka dates by the first batch's, and a
        // producer sending old timestamps (a replay, a skewed clock) then rolls a segment per batch.
        return new Segment(
                dir,
                name,
                cache,
                policy,
                index,
                size,
                Files.getLastModifiedTime(logFile).toMillis(),
                size == 0,
                sealed);
    }

    /** Opens an existing segment as the active one, with a cache of its own (tools and tests). */
    public static Segment open(Path dir, SegmentName name, IndexPolicy policy) throws IOException {
        return open(dir, name, policy, false, new FileHandleCache(FileHandleCache.defaultCeiling()));
    }

    public SegmentName name() {
        return name;
    }

    public long baseOffset() {
        return name.baseOffset();
    }

    public Path logFile() {
        return logFile;
    }

    public SparseIndex index() {
        return index;
    }

    public long size() {
        return size;
    }

    public long createdMs() {
        return createdMs;
    }

    public boolean isSealed() {
        return sealed;
    }

    /**
     * Holds the channels an {@link #append} of these batches ({@code count} of them, at {@code starts}) will write open while it runs, if they are
     * open now: the log's, and the index's when an index entry is due; null when one is not open (the
     * append would have to open it, and opening may make the handle cache evict, which may fsync another
     * file). While held, eviction cannot close them, so the append's own {@code acquire}s find them open.
     * Close the hold after the append.
     */
    public ChannelHold holdChannelsIfOpen(ByteBuffer batches, int[] starts, int count) {
        CachedFile.Handle l = log.acquireIfOpen();
        if (l == null) {
            return null;
        }
        CachedFile.Handle i = null;
        if (indexEntryDue(batches, starts, count)) {
            i = index.acquireIfOpen();
            if (i == null) {
                l.close();
                return null;
            }
        }
        CachedFile.Handle indexHandle = i;
        return () -> {
            if (indexHandle != null) {
                indexHandle.close();
            }
            l.close();
        };
    }

    /** Whether {@link #append} would write an index entry for any of these batches (as its loop decides). */
    private boolean indexEntryDue(ByteBuffer batches, int[] starts, int count) {
        int origin = batches.position();
        for (int i = 0; i < count; i++) {
            if (indexPolicy.due(size + starts[i] - origin, index.lastEntry())) {
                return true;
            }
        }
        return false;
    }

    /** Channels held open by {@link #holdChannelsIfOpen}; closing lets go of them (it does not close them). */
    public interface ChannelHold extends AutoCloseable {
        @Override
        void close();
    }

    /** Whether the log's channel is open now (tests of the handle budget). */
    public boolean logIsOpen() {
        return log.isOpen();
    }

    /**
     * Appends already validated and offset-assigned batches: {@code headers.get(i)} starts at
     * {@code starts[i]} inside {@code batches}. Either all bytes land and become visible, or the log is
     * cut back to its old size and the IOException propagates (disk full leaves no partial batch).
     * Holds Partition.lock.
     */
    public void append(ByteBuffer batches, List<RecordBatchHeader> headers, int[] starts) throws IOException {
        if (sealed) {
            throw new IllegalStateException(logFile + " is sealed");
        }
        long at = size;
        ByteBuffer src = batches.duplicate();
        int origin = src.position();
        try (CachedFile.Handle h = log.acquire()) {
            FileChannel ch = h.channel();
            try {
                long pos = at;
                while (src.hasRemaining()) {
                    pos += ch.write(src, pos);
                }
            } catch (IOException e) {
                undo(ch, at, e);
                throw e;
            }
            try {
                for (int i = 0; i < headers.size(); i++) {
                    int batchPos = (int) (at + starts[i] - origin);
                    if (indexPolicy.due(batchPos, index.lastEntry())) {
                        index.append(headers.get(i).lastOffset(), batchPos);
                    }
                    noteTimestamp(headers.get(i));
                }
            } catch (IOException e) {
                undo(ch, at, e);
                throw e;
            }
            // Published before the handle is let go: eviction then sees unsynced bytes and keeps the channel.
            size = at + (batches.limit() - origin);
        }
    }

    private void undo(FileChannel ch, long at, IOException cause) {
        try {
            ch.truncate(at);
            index.truncateToPosition(at);
        } catch (IOException e) {
            cause.addSuppressed(e);
            throw new StorageException(
                    StorageException.Kind.IO,
                    logFile + ": append failed and the partial batch at byte " + at + " could not be cut off: "
                            + e.getMessage(),
                    cause);
        }
    }

    private void noteTimestamp(RecordBatchHeader h) {
        if (timestampsKnown && h.maxTimestamp() > maxTimestamp) {
            maxTimestamp = h.maxTimestamp();
            offsetOfMaxTimestamp = h.baseOffset();
        }
    }

    /**
     * fsync of the log's data (fdatasync: includes the size, which is what makes appended bytes
     * readable). Nothing to do when every byte is known fsynced: an idle partition's close opens no file.
     */
    public void flush() throws IOException {
        long covered = size;
        if (covered <= durableSize && evictionSyncFailure == null) {
            return;
        }
        try (CachedFile.Handle h = log.acquire()) {
            h.channel().force(false);
        }
        IOException failed = evictionSyncFailure;
        if (failed != null) {
            throw new IOException(
                    logFile + ": an fsync before closing an idle descriptor failed: " + failed.getMessage(), failed);
        }
        if (covered > durableSize) {
            durableSize = covered;
        }
    }

    /**
     * The bytes on disk may not be fsynced (the last process did not close cleanly): the next flush
     * syncs them all. Called at open, before the segment is shared.
     */
    public void assumeUnsynced() {
        durableSize = 0;
    }

    /** Roll: fsync, then refuse further appends. Holds Partition.lock. */
    public void seal() throws IOException {
        flush();
        sealed = true;
    }

    /**
     * Byte position of the first batch whose last offset is ≥ {@code offset}, or -1 if none lies
     * below {@code limit}. Reads only batch heads, starting from the index's nearest entry.
     */
    public long positionOf(long offset, long limit) throws IOException {
        long from = index.lookup(offset).position();
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), from, limit);
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                if (batches.lastOffset() >= offset) {
                    return batches.position();
                }
            }
            throwIfBadFraming(batches);
            return -1;
        }
    }

    /** Where {@link #positionOf} starts walking for {@code offset}: the index's nearest entry at or below it. */
    public long walkStartFor(long offset) {
        return index.lookup(offset).position();
    }

    /**
     * A walk over batch heads that stopped before the end of its range met bytes that do not frame a
     * batch: damage in bytes the open trusted (a closed segment is not scanned at open), refused as a
     * corrupt batch naming file and byte (the broker answers CORRUPT_MESSAGE) rather than read as data.
     * Only the length fields the walk reads anyway are checked: a read never checks CRCs (the consumer does).
     */
    private void throwIfBadFraming(HeaderCursor batches) {
        HeaderCursor.Framing f = batches.framing();
        if (f != HeaderCursor.Framing.BATCH && f != HeaderCursor.Framing.END) {
            throw new StorageException(
                    StorageException.Kind.CORRUPT_BATCH,
                    logFile + ":" + batches.position()
                            + ": the bytes there do not frame a batch (" + f + ", "
                            + (batches.end() - batches.position())
                            + " bytes to the end of the readable range): run `kaas verify` on the partition");
        }
    }

    /**
     * Header of the first batch at or after byte {@code fromPosition} (a batch start: a {@link SegmentTimeIndex}
     * hint, or 0) whose max timestamp is ≥ {@code timestamp} and that holds an offset ≥ {@code minOffset}
     * (log start: its next offset is above it), or null. For ListOffsets by timestamp: the answer is a
     * record inside this batch, which the broker finds (core-storage never decodes records). Reads only batch heads.
     */
    public RecordBatchHeader firstBatchWithMaxTimestampAtLeast(long timestamp, long minOffset, long fromPosition)
            throws IOException {
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), fromPosition, size);
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                if (batches.maxTimestamp() >= timestamp && batches.nextOffset() > minOffset) {
                    return batches.header();
                }
            }
            return null;
        }
    }

    /** Reads a whole-batch header at {@code pos}. */
    public RecordBatchHeader headerAt(long pos) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
        readFully(head, pos);
        return RecordBatchHeader.peek(head, 0);
    }

    /**
     * End of the run of whole batches starting at {@code pos} (a batch start) that a read returns:
     * the first batch always (if its base offset is below {@code cap}), then following ones while
     * their base offset is below {@code cap}, they end at or before {@code limit} and the run stays
     * within {@code maxBytes}. Reads only batch heads.
     */
    public long wholeBatchesEnd(long pos, long limit, int maxBytes, long cap) throws IOException {
        // The index's entries are batch starts: the batches up to the last one within reach (bytes and
        // cap) are taken without reading their headers, one pread each, and the walk goes on from there.
        // Same answer as walking from pos (appends are validated, so the framing in between holds).
        IndexEntry within = index.lastBatchStartWithin(pos, Math.min(limit, pos + (long) maxBytes), cap);
        long from = within == null ? pos : within.position();
        try (CachedFile.Handle h = log.acquire()) {
            HeaderCursor batches = new HeaderCursor(h.channel(), from, limit);
            long end = from;
            long expected = -1;
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                long next = batches.position() + batches.sizeInBytes();
                if (batches.baseOffset() >= cap || (end > pos && next - pos > maxBytes)) {
                    return end;
                }
                if (batches.baseOffset() < expected) {
                    // A base offset (outside the CRC) going back below the previous batch's end is damage the open did
                    // not scan: the read ends before it; the next read from the offset after passes it by.
                    return end;
                }
                expected = batches.nextOffset();
                end = next;
            }
            if (end == pos) {
                throwIfBadFraming(batches); // nothing whole to return before the bad bytes: refuse, don't answer empty
            }
            return end;
        }
    }

    /**
     * {@code [pos, pos+length)} of the log as a region of its file, for a zero-copy send, or null when
     * sends in flight already hold their share of the file budget ({@link FileHandleCache#tryStartSend}):
     * the caller copies instead. The slice holds the channel open until {@link FileSlice#release}.
     */
    public FileSlice sliceOrNull(long pos, int length) throws IOException {
        if (!cache.tryStartSend()) {
            return null;
        }
        try {
            return new FileSlice(log.acquire(), pos, length, cache::endSend);
        } catch (IOException | RuntimeException e) {
            cache.endSend();
            throw e;
        }
    }

    /** Copies {@code [pos, pos+length)} of the log. */
    public ByteBuffer read(long pos, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        readFully(buf, pos);
        buf.flip();
        return buf;
    }

    private void readFully(ByteBuffer buf, long pos) throws IOException {
        try (CachedFile.Handle h = log.acquire()) {
            long at = pos;
            while (buf.hasRemaining()) {
                int r = h.channel().read(buf, at);
                if (r < 0) {
                    throw new IOException(logFile + ": unexpected end of file at byte " + at);
                }
                at += r;
            }
        }
    }

    /** Largest batch max timestamp (scanning heads once for segments opened from disk); -1 if none. */
    public long maxTimestamp() throws IOException {
        ensureTimestamps();
        return maxTimestamp;
    }

    public long offsetOfMaxTimestamp() throws IOException {
        ensureTimestamps();
        return offsetOfMaxTimestamp;
    }

    private void ensureTimestamps() throws IOException {
        if (timestampsKnown) {
            return;
        }
        synchronized (this) {
            if (timestampsKnown) {
                return;
            }
            long max = RecordBatchHeader.NO_TIMESTAMP;
            long at = -1;
            try (CachedFile.Handle h = log.acquire()) {
                HeaderCursor batches = new HeaderCursor(h.channel(), 0, size);
                while (batches.next() == HeaderCursor.Framing.BATCH) {
                    if (batches.maxTimestamp() > max) {
                        max = batches.maxTimestamp();
                        at = batches.baseOffset();
                    }
                }
            }
            maxTimestamp = max;
            offsetOfMaxTimestamp = at;
            timestampsKnown = true;
        }
    }

    /** Last-modified time of the log file (segment age when no batch carries a timestamp). */
    public long lastModifiedMs() throws IOException {
        return Files.getLastModifiedTime(logFile).toMillis();
    }

    /**
     * Holds this segment's log channel open (and its index entries in memory) until the returned handle
     * is closed: the cleaner renames a cleaned segment over this one's files, and a reader still walking
     * the old view must keep reading the old bytes, never reopen the name. Retire the segment
     * ({@link #close}) before letting go.
     */
    public CachedFile.Handle holdForSwap() throws IOException {
        CachedFile.Handle h = log.acquire();
        index.loadForGood();
        return h;
    }

    /**
     * Ends the segment's use of its files: no new reads; channels close once idle (a zero-copy send
     * still holding the log finishes first).
     */
    @Override
    public void close() throws IOException {
        try {
            index.close();
        } finally {
            log.retire();
        }
    }

    /**
     * Closes the segment ({@link #close}) and unlinks both files; a slice already handed out stays
     * readable (the inode lives until its last holder lets go). The caller fsyncs the directory.
     */
    public void closeAndUnlink() throws IOException {
        close();
        Files.deleteIfExists(logFile);
        Files.deleteIfExists(index.file());
    }

    @Override
    public String toString() {
        return logFile.toString();
    }
}
