package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.CachedFile;
import io.kaas.storage.io.FileHandleCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment's {@code .log} as a {@link CachedFile} of the engine's {@link FileHandleCache}: the size readers
 * may read, how much of it is known fsynced, and the rule that makes closing an idle descriptor safe. The file
 * is opened on demand and closed by eviction when idle, except while it holds bytes not yet fsynced: then
 * eviction fsyncs it first, through the descriptor that saw every write (a fresh descriptor might not hear of
 * a writeback error), and a failure there fails every later {@link #flush}, so nothing more is acknowledged.
 *
 * <p>The writer (the segment's append, holding Partition.lock) writes through {@link #acquire} and then
 * {@link #publishSize publishes} the new size; {@link #flush} runs on a committer thread outside that lock and
 * covers the size it read first. Readers use positional reads from any thread and look only below
 * {@link #size}, published after the bytes are written, so they never see a partial batch.
 */
final class SegmentLogFile {
    private final Path path;
    private final CachedFile file;
    private final FileHandleCache cache;
    private volatile long size;
    /** Bytes known fsynced: the channel may be evicted only when this reaches {@link #size}. */
    private volatile long durableSize;
    /** An fsync eviction ran for this log failed: every later flush fails with it. */
    private volatile IOException evictionSyncFailure;

    /** @param onEvicted runs after eviction closed the idle channel (the segment went cold) */
    SegmentLogFile(Path path, long size, FileHandleCache cache, Runnable onEvicted) {
        this.path = path;
        this.size = size;
        this.durableSize = size;
        this.cache = cache;
        this.file = cache.file(path, new Owner(onEvicted), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** What eviction must know of the log: unsynced bytes are fsynced through the channel that wrote them. */
    private final class Owner implements CachedFile.Owner {
        private final Runnable onEvicted;

        Owner(Runnable onEvicted) {
            this.onEvicted = onEvicted;
        }

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
            onEvicted.run();
        }
    }

    Path path() {
        return path;
    }

    long size() {
        return size;
    }

    /** The writer's new size, once its bytes are written (before its handle is let go). Holds Partition.lock. */
    void publishSize(long newSize) {
        size = newSize;
    }

    CachedFile.Handle acquire() throws IOException {
        return file.acquire();
    }

    /** The channel if it is open now, held; null otherwise (never opens, so never makes the cache evict). */
    CachedFile.Handle acquireIfOpen() {
        return file.acquireIfOpen();
    }

    boolean isOpen() {
        return file.isOpen();
    }

    /** No new uses; the channel closes once idle (a zero-copy send still holding it finishes first). */
    void retire() {
        file.retire();
    }

    /**
     * fsync of the log's data (fdatasync: includes the size, which is what makes appended bytes
     * readable). Nothing to do when every byte is known fsynced: an idle partition's close opens no file.
     */
    void flush() throws IOException {
        long covered = size;
        if (covered <= durableSize && evictionSyncFailure == null) {
            return;
        }
        try (CachedFile.Handle h = file.acquire()) {
            h.channel().force(false);
        }
        IOException failed = evictionSyncFailure;
        if (failed != null) {
            throw new IOException(
                    path + ": an fsync before closing an idle descriptor failed: " + failed.getMessage(), failed);
        }
        if (covered > durableSize) {
            durableSize = covered;
        }
    }

    /** The bytes on disk may not be fsynced: the next flush syncs them all. Before the segment is shared. */
    void assumeUnsynced() {
        durableSize = 0;
    }

    /** Reads a whole-batch header at {@code pos}. */
    RecordBatchHeader headerAt(long pos) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
        readFully(head, pos);
        return RecordBatchHeader.peek(head, 0);
    }

    /** Copies {@code [pos, pos+length)}. */
    ByteBuffer read(long pos, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        readFully(buf, pos);
        buf.flip();
        return buf;
    }

    private void readFully(ByteBuffer buf, long pos) throws IOException {
        try (CachedFile.Handle h = file.acquire()) {
            long at = pos;
            while (buf.hasRemaining()) {
                int r = h.channel().read(buf, at);
                if (r < 0) {
                    throw new IOException(path + ": unexpected end of file at byte " + at);
                }
                at += r;
            }
        }
    }

    /**
     * {@code [pos, pos+length)} as a region of the file, for a zero-copy send, or null when sends in flight
     * already hold their share of the file budget ({@link FileHandleCache#tryStartSend}): the caller copies
     * instead. The slice holds the channel open until {@link FileSlice#release}.
     */
    FileSlice sliceOrNull(long pos, int length) throws IOException {
        if (!cache.tryStartSend()) {
            return null;
        }
        try {
            return new FileSlice(file.acquire(), pos, length, cache::endSend);
        } catch (IOException | RuntimeException e) {
            cache.endSend();
            throw e;
        }
    }
}
