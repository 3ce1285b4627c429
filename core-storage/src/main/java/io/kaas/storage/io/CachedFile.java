package io.kaas.storage.io;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file of the {@link FileHandleCache}: its channel is opened on the first {@link #acquire}, may be
 * closed by eviction whenever nobody holds it, and is opened again on the next acquire. Every use holds
 * a {@link Handle} (a counted reference) for as long as it touches the channel, so eviction never
 * closes a channel under a read, a write, an fsync or a zero-copy send.
 *
 * <p>A channel holding bytes not yet fsynced is evicted only after its {@link Owner} fsynced them
 * through it (and only when clean channels alone cannot make room): an fsync through a later
 * descriptor covers the same pages, but the descriptor that wrote is where a writeback error is
 * certain to be reported.
 *
 * <p>{@link #retire} ends the file's life (segment closed or removed): no new acquire succeeds (they
 * get {@link ClosedChannelException}, which readers answer by re-reading the partition's view), and
 * the channel closes as soon as the last holder lets go, so a send already handed to a socket still
 * completes, even from a file that was unlinked.
 */
public final class CachedFile {
    private static final Logger LOG = LoggerFactory.getLogger(CachedFile.class);

    private final FileHandleCache cache;
    private final Path path;
    private final Set<OpenOption> options;
    private final Owner owner;
    /** The open channel, or null. Written under this object's monitor; read without it on the fast path. */
    private volatile Handle current;

    private volatile boolean retired;
    private volatile long lastUsed;

    CachedFile(FileHandleCache cache, Path path, Owner owner, OpenOption... options) {
        this.cache = cache;
        this.path = path;
        this.owner = owner;
        this.options = Set.of(options);
    }

    /** What the file's user tells eviction. */
    public interface Owner {
        /** An owner with nothing unsynced to care about (read-only files, the rebuildable index). */
        Owner ANY = new Owner() {};

        /** True when closing the channel loses nothing: every byte written through it was fsynced. */
        default boolean isClean() {
            return true;
        }

        /**
         * Called before eviction closes a channel that is not clean, with that channel (the descriptor
         * that wrote, so a writeback error is reported here); makes it clean or throws to keep it open.
         */
        default void syncBeforeClose(FileChannel channel) throws IOException {}

        /** After eviction closed the channel (not after {@link CachedFile#retire}). */
        default void evicted() {}
    }

    public Path path() {
        return path;
    }

    /**
     * The channel, opened if needed, held until the handle is closed.
     *
     * @throws ClosedChannelException after {@link #retire}
     */
    public Handle acquire() throws IOException {
        Handle h = current;
        if (h != null && h.retain()) {
            if (retired) {
                h.close(); // retired while a send still held the channel: it is not for new uses
                throw new ClosedChannelException();
            }
            lastUsed = System.nanoTime();
            return h;
        }
        synchronized (this) {
            if (retired) {
                throw new ClosedChannelException();
            }
            h = current;
            if (h != null && h.retain()) {
                lastUsed = System.nanoTime();
                return h;
            }
            // The channel was evicted (or never opened): open it again, already held by the caller.
            h = new Handle(FileChannel.open(path, options));
            current = h;
            lastUsed = System.nanoTime();
        }
        cache.opened(this);
        return h;
    }

    /**
     * The channel if it is open now, held until the handle is closed; null when it is not open (or the
     * file is retired). Never opens a file, so never makes the cache evict (which may fsync another
     * file): for a thread that must not block, such as a network event loop.
     */
    public Handle acquireIfOpen() {
        Handle h = current;
        if (h == null || !h.retain()) {
            return null;
        }
        if (retired) {
            h.close();
            return null;
        }
        lastUsed = System.nanoTime();
        return h;
    }

    /** Whether a channel is open now (tests). */
    public boolean isOpen() {
        return current != null;
    }

    long lastUsed() {
        return lastUsed;
    }

    boolean isClean() {
        return owner.isClean();
    }

    /**
     * Closes the channel if nobody holds it; the next acquire reopens it. A channel holding unsynced
     * bytes is closed only when {@code syncDirty}, after the owner fsynced it through this very channel.
     * Called by the cache only.
     */
    void evictIfIdle(boolean syncDirty) {
        Handle h;
        synchronized (this) {
            h = current;
            if (h == null || (!syncDirty && !owner.isClean()) || !h.refs.compareAndSet(0, Handle.CLOSED)) {
                return;
            }
            // Asked again now that nobody can start a write: a writer that let go just before the CAS has
            // published what it wrote by then.
            if (!owner.isClean()) {
                try {
                    if (!syncDirty) {
                        throw new IOException("written meanwhile");
                    }
                    owner.syncBeforeClose(h.channel);
                } catch (IOException e) {
                    h.refs.set(0);
                    return;
                }
            }
            current = null;
        }
        h.closeChannel();
        cache.closed(this, true);
        cache.evicted();
        owner.evicted();
    }

    /**
     * No more acquires; the channel closes now if idle, else when its last holder lets go. Idempotent.
     */
    public void retire() {
        Handle h;
        synchronized (this) {
            retired = true;
            h = current;
        }
        if (h != null) {
            h.closeIfIdle();
        }
    }

    private void handleClosed(Handle h) {
        boolean wasCurrent;
        synchronized (this) {
            wasCurrent = current == h;
            if (wasCurrent) {
                current = null;
            }
        }
        cache.closed(this, wasCurrent);
    }

    @Override
    public String toString() {
        return path.toString();
    }

    /**
     * A held reference to the file's open channel. {@link #close} lets go of it (it does not close
     * the channel unless it was the last reference to a retired file's). Close each handle once.
     */
    public final class Handle implements AutoCloseable {
        static final int CLOSED = -1;
        private final FileChannel channel;
        /** Holders; {@link #CLOSED} once closed (never reopened: a reopen is a new Handle). */
        private final AtomicInteger refs = new AtomicInteger(1);

        private Handle(FileChannel channel) {
            this.channel = channel;
        }

        public FileChannel channel() {
            return channel;
        }

        private boolean retain() {
            for (; ; ) {
                int r = refs.get();
                if (r == CLOSED) {
                    return false;
                }
                if (refs.compareAndSet(r, r + 1)) {
                    return true;
                }
            }
        }

        @Override
        public void close() {
            if (refs.decrementAndGet() == 0 && retired) {
                closeIfIdle();
            }
        }

        private void closeIfIdle() {
            if (refs.compareAndSet(0, CLOSED)) {
                closeChannel();
                handleClosed(this);
            }
        }

        private void closeChannel() {
            try {
                channel.close();
            } catch (IOException e) {
                // Only clean files are closed (the log's unsynced bytes keep it open), so nothing is lost.
                LOG.warn("{}: close failed: {}", path, e.toString());
            }
        }
    }
}
