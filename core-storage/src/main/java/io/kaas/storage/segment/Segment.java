package io.kaas.storage.segment;

import io.kaas.storage.FileSlice;
import io.kaas.storage.StorageException;
import io.kaas.storage.format.RecordBatchHeader;
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
 * <p>Writers hold Partition.lock. Readers use positional reads and only look at bytes below
 * {@link #size()}, which is published after the bytes are written, so they never see a partial batch.
 */
public final class Segment implements AutoCloseable {
    private final Path logFile;
    private final SegmentName name;
    private final FileChannel log;
    private final SparseIndex index;
    private final IndexPolicy indexPolicy;
    private final long createdMs;
    private volatile long size;
    /** Largest batch max timestamp and the base offset of its batch; -1 until known. */
    private volatile long maxTimestamp = RecordBatchHeader.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestamp = -1;
    private volatile boolean timestampsKnown;
    /** Set once roll has fsynced this segment; it takes no more appends. */
    private volatile boolean sealed;

    private Segment(Path logFile, SegmentName name, FileChannel log, SparseIndex index, IndexPolicy indexPolicy,
                    long size, long createdMs, boolean timestampsKnown) {
        this.logFile = logFile;
        this.name = name;
        this.log = log;
        this.index = index;
        this.indexPolicy = indexPolicy;
        this.size = size;
        this.createdMs = createdMs;
        this.timestampsKnown = timestampsKnown;
    }

    /** Creates empty log and index files (fails if the log exists). The caller fsyncs the directory. */
    public static Segment create(Path dir, SegmentName name, IndexPolicy policy, long nowMs) throws IOException {
        Path logFile = dir.resolve(name.logFileName());
        FileChannel log = FileChannel.open(logFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            SparseIndex index = SparseIndex.create(dir.resolve(name.indexFileName()), name.baseOffset());
            return new Segment(logFile, name, log, index, policy, 0, nowMs, true);
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    /** Opens an existing, already recovered segment. */
    public static Segment open(Path dir, SegmentName name, IndexPolicy policy) throws IOException {
        Path logFile = dir.resolve(name.logFileName());
        FileChannel log = FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            SparseIndex index = SparseIndex.open(dir.resolve(name.indexFileName()), name.baseOffset());
            long size = log.size();
            // segment.ms counts wall-clock time: a segment created by a roll is dated by the clock, a reopened one
            // by its file's last write. Never by client timestamps: Kafka dates by the first batch's, and a
            // producer sending old timestamps (a replay, a skewed clock) then rolls a segment per batch.
            return new Segment(logFile, name, log, index, policy, size, Files.getLastModifiedTime(logFile).toMillis(), size == 0);
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
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
        try {
            long pos = at;
            while (src.hasRemaining()) {
                pos += log.write(src, pos);
            }
        } catch (IOException e) {
            undo(at, e);
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
            undo(at, e);
            throw e;
        }
        size = at + (batches.limit() - origin);
    }

    private void undo(long at, IOException cause) {
        try {
            log.truncate(at);
            index.truncateToPosition(at);
        } catch (IOException e) {
            cause.addSuppressed(e);
            throw new StorageException(StorageException.Kind.IO,
                    logFile + ": append failed and the partial batch at byte " + at + " could not be cut off: " + e.getMessage(), cause);
        }
    }

    private void noteTimestamp(RecordBatchHeader h) {
        if (timestampsKnown && h.maxTimestamp() > maxTimestamp) {
            maxTimestamp = h.maxTimestamp();
            offsetOfMaxTimestamp = h.baseOffset();
        }
    }

    /** fsync of the log's data (fdatasync: includes the size, which is what makes appended bytes readable). */
    public void flush() throws IOException {
        log.force(false);
    }

    /** Roll: fsync, then refuse further appends. Holds Partition.lock. */
    public void seal() throws IOException {
        log.force(false);
        sealed = true;
    }

    /**
     * Byte position of the first batch whose last offset is ≥ {@code offset}, or -1 if none lies
     * below {@code limit}. Reads only batch heads, starting from the index's nearest entry.
     */
    public long positionOf(long offset, long limit) throws IOException {
        HeaderCursor batches = new HeaderCursor(log, index.lookup(offset).position(), limit);
        while (batches.next() == HeaderCursor.Framing.BATCH) {
            if (batches.lastOffset() >= offset) {
                return batches.position();
            }
        }
        return -1;
    }

    /**
     * Header of the first batch at or after byte {@code fromPosition} (a batch start: a {@link SegmentTimeIndex}
     * hint, or 0) whose max timestamp is ≥ {@code timestamp} and that holds an offset ≥ {@code minOffset}
     * (log start: its next offset is above it), or null. For ListOffsets by timestamp: the answer is a
     * record inside this batch, which the broker finds (core-storage never decodes records). Reads only batch heads.
     */
    public RecordBatchHeader firstBatchWithMaxTimestampAtLeast(long timestamp, long minOffset, long fromPosition) throws IOException {
        HeaderCursor batches = new HeaderCursor(log, fromPosition, size);
        while (batches.next() == HeaderCursor.Framing.BATCH) {
            if (batches.maxTimestamp() >= timestamp && batches.nextOffset() > minOffset) {
                return batches.header();
            }
        }
        return null;
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
        HeaderCursor batches = new HeaderCursor(log, pos, limit);
        long end = pos;
        while (batches.next() == HeaderCursor.Framing.BATCH) {
            long next = batches.position() + batches.sizeInBytes();
            if (batches.baseOffset() >= cap || (end > pos && next - pos > maxBytes)) {
                break;
            }
            end = next;
        }
        return end;
    }

    /** {@code [pos, pos+length)} of the log as a region of its file, for a zero-copy send. */
    public FileSlice slice(long pos, int length) {
        return new FileSlice(log, pos, length);
    }

    /** Copies {@code [pos, pos+length)} of the log. */
    public ByteBuffer read(long pos, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        readFully(buf, pos);
        buf.flip();
        return buf;
    }

    private void readFully(ByteBuffer buf, long pos) throws IOException {
        long at = pos;
        while (buf.hasRemaining()) {
            int r = log.read(buf, at);
            if (r < 0) {
                throw new IOException(logFile + ": unexpected end of file at byte " + at);
            }
            at += r;
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
            HeaderCursor batches = new HeaderCursor(log, 0, size);
            long max = RecordBatchHeader.NO_TIMESTAMP;
            long at = -1;
            while (batches.next() == HeaderCursor.Framing.BATCH) {
                if (batches.maxTimestamp() > max) {
                    max = batches.maxTimestamp();
                    at = batches.baseOffset();
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

    @Override
    public void close() throws IOException {
        try {
            index.close();
        } finally {
            log.close();
        }
    }

    /**
     * Unlinks both files but keeps them open, so a {@link #slice} already handed out stays readable
     * (the inode lives until {@link #close}). The caller fsyncs the directory and closes later.
     */
    public void unlinkKeepOpen() throws IOException {
        Files.deleteIfExists(logFile);
        Files.deleteIfExists(index.file());
    }

    /** Closes and unlinks both files; the caller fsyncs the directory. */
    public void delete() throws IOException {
        close();
        Files.deleteIfExists(logFile);
        Files.deleteIfExists(index.file());
    }

    @Override
    public String toString() {
        return logFile.toString();
    }
}
