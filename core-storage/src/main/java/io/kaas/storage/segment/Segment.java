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
import java.util.List;

/**
 * One {@code .log} + {@code .index} pair: its life (create, open, seal, close, unlink) and its append, which
 * keeps the log, the index and the max timestamp in step. The log holds v2 batches exactly as the client sent
 * them (baseOffset and partitionLeaderEpoch assigned); the index is sparse and rebuildable. The parts:
 * {@link SegmentLogFile} (the log through the handle cache and its fsync rule), {@link SparseIndex} (the
 * index, its entries in memory), {@link BatchLocator} (reads that walk batch heads), {@link
 * SegmentMaxTimestamp}.
 *
 * <p>Neither file is held open: the log is opened on demand and closed by eviction when idle, except while it
 * holds bytes not yet fsynced. A sealed segment's index entries are read on the first lookup and dropped
 * again when its log is evicted.
 *
 * <p>Writers ({@link #append}, {@link #seal}, {@link #holdForSwap}) hold Partition.lock; {@link #flush} runs
 * on a committer outside it. Readers use positional reads and only look at bytes below {@link #size()},
 * which is published after the bytes are written, so they never see a partial batch.
 */
public final class Segment implements AutoCloseable {
    private final SegmentName name;
    private final SegmentLogFile log;
    private final SparseIndex index;
    private final IndexPolicy indexPolicy;
    private final BatchLocator batches;
    private final SegmentMaxTimestamp timestamps;
    private final long createdMs;
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
        this.name = name;
        this.index = index;
        this.indexPolicy = indexPolicy;
        this.createdMs = createdMs;
        this.sealed = sealed;
        this.log = new SegmentLogFile(dir.resolve(name.logFileName()), size, cache, index::unloadIfSealed);
        this.batches = new BatchLocator(log, index);
        this.timestamps = new SegmentMaxTimestamp(log, timestampsKnown);
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
        return log.path();
    }

    public SparseIndex index() {
        return index;
    }

    public long size() {
        return log.size();
    }

    public long createdMs() {
        return createdMs;
    }

    public boolean isSealed() {
        return sealed;
    }

    /**
     * Holds the channels an {@link #append} of these batches ({@code count} of them, at {@code starts}) will
     * write open while it runs, if they are open now: the log's, and the index's when an index entry is due;
     * null when one is not open (the append would have to open it, and opening may make the handle cache
     * evict, which may fsync another file). While held, eviction cannot close them, so the append's own
     * {@code acquire}s find them open. Close the hold after the append.
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
            if (indexPolicy.due(log.size() + starts[i] - origin, index.lastEntry())) {
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
            throw new IllegalStateException(log.path() + " is sealed");
        }
        long at = log.size();
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
                    timestamps.note(headers.get(i));
                }
            } catch (IOException e) {
                undo(ch, at, e);
                throw e;
            }
            // Published before the handle is let go: eviction then sees unsynced bytes and keeps the channel.
            log.publishSize(at + (batches.limit() - origin));
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
                    log.path() + ": append failed and the partial batch at byte " + at + " could not be cut off: "
                            + e.getMessage(),
                    cause);
        }
    }

    /**
     * fsync of the log's data (fdatasync: includes the size, which is what makes appended bytes
     * readable). Nothing to do when every byte is known fsynced: an idle partition's close opens no file.
     */
    public void flush() throws IOException {
        log.flush();
    }

    /**
     * The bytes on disk may not be fsynced (the last process did not close cleanly): the next flush
     * syncs them all. Called at open, before the segment is shared.
     */
    public void assumeUnsynced() {
        log.assumeUnsynced();
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
        return batches.positionOf(offset, limit);
    }

    /** Where {@link #positionOf} starts walking for {@code offset}: the index's nearest entry at or below it. */
    public long walkStartFor(long offset) {
        return batches.walkStartFor(offset);
    }

    /**
     * Header of the first batch at or after byte {@code fromPosition} (a batch start: a {@link SegmentTimeIndex}
     * hint, or 0) whose max timestamp is ≥ {@code timestamp} and that holds an offset ≥ {@code minOffset}
     * (log start: its next offset is above it), or null. For ListOffsets by timestamp: the answer is a
     * record inside this batch, which the broker finds (core-storage never decodes records). Reads only batch heads.
     */
    public RecordBatchHeader firstBatchWithMaxTimestampAtLeast(long timestamp, long minOffset, long fromPosition)
            throws IOException {
        return batches.firstBatchWithMaxTimestampAtLeast(timestamp, minOffset, fromPosition);
    }

    /** Reads a whole-batch header at {@code pos}. */
    public RecordBatchHeader headerAt(long pos) throws IOException {
        return log.headerAt(pos);
    }

    /**
     * End of the run of whole batches starting at {@code pos} (a batch start) that a read returns:
     * the first batch always (if its base offset is below {@code cap}), then following ones while
     * their base offset is below {@code cap}, they end at or before {@code limit} and the run stays
     * within {@code maxBytes}. Reads only batch heads.
     */
    public long wholeBatchesEnd(long pos, long limit, int maxBytes, long cap) throws IOException {
        return batches.wholeBatchesEnd(pos, limit, maxBytes, cap);
    }

    /**
     * {@code [pos, pos+length)} of the log as a region of its file, for a zero-copy send, or null when
     * sends in flight already hold their share of the file budget ({@link FileHandleCache#tryStartSend}):
     * the caller copies instead. The slice holds the channel open until {@link FileSlice#release}.
     */
    public FileSlice sliceOrNull(long pos, int length) throws IOException {
        return log.sliceOrNull(pos, length);
    }

    /** Copies {@code [pos, pos+length)} of the log. */
    public ByteBuffer read(long pos, int length) throws IOException {
        return log.read(pos, length);
    }

    /** Largest batch max timestamp (scanning heads once for segments opened from disk); -1 if none. */
    public long maxTimestamp() throws IOException {
        return timestamps.maxTimestamp();
    }

    public long offsetOfMaxTimestamp() throws IOException {
        return timestamps.offsetOfMaxTimestamp();
    }

    /** Last-modified time of the log file (segment age when no batch carries a timestamp). */
    public long lastModifiedMs() throws IOException {
        return Files.getLastModifiedTime(log.path()).toMillis();
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
        Files.deleteIfExists(log.path());
        Files.deleteIfExists(index.file());
    }

    @Override
    public String toString() {
        return log.path().toString();
    }
}
