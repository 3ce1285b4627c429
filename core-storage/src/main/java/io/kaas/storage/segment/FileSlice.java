package io.kaas.storage.segment;

import io.kaas.storage.io.CachedFile;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whole batches as a region of a segment file: {@code length} bytes from {@code position} of
 * {@code channel}, for a zero-copy send (sendfile). The slice holds its channel open: the file-handle
 * cache does not evict it, and neither retention, DeleteRecords nor a partition close closes it, until
 * {@link #release} (so a response already being written completes). Whoever ends up holding the slice
 * releases it once: the file region Netty writes, or the code that drops the response. Callers
 * transfer from the channel and never close it.
 */
public final class FileSlice {
    private final CachedFile.Handle handle;
    private final long position;
    private final int length;
    private final Runnable onRelease;
    private final AtomicBoolean released = new AtomicBoolean();

    /** {@code onRelease} runs once, after the handle is let go (the budget's count of sends in flight). */
    public FileSlice(CachedFile.Handle handle, long position, int length, Runnable onRelease) {
        this.handle = handle;
        this.position = position;
        this.length = length;
        this.onRelease = onRelease;
    }

    public FileChannel channel() {
        return handle.channel();
    }

    public long position() {
        return position;
    }

    public int length() {
        return length;
    }

    /** Lets go of the channel; later calls do nothing. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            handle.close();
            onRelease.run();
        }
    }

    public boolean isReleased() {
        return released.get();
    }

    @Override
    public String toString() {
        return "FileSlice[" + position + "+" + length + "]";
    }
}
