package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * A delegate file channel with the faults of its filesystem applied, and every write recorded in the
 * file's {@link FileNode} so {@code force()} can move it into the durable image. Once the
 * filesystem loses power every call throws. Thread-safe as far as the delegate is: writes and
 * truncates of one file are serialized on its node so the recorded order is the written order;
 * {@code force()} runs beside them, as on a real disk.
 */
final class FaultyFileChannel extends FileChannel {
    private final FaultyFileSystem fs;
    /** The path this channel was opened with (delegate path, absolute): what fault scopes match. */
    private final Path path;

    private final FileChannel delegate;
    /** Null when the file is outside the tracked trees: faults apply, durability is not modelled. */
    private final FileNode node;

    private final boolean append;
    private final Object writeLock;

    FaultyFileChannel(FaultyFileSystem fs, Path path, FileChannel delegate, FileNode node, boolean append) {
        this.fs = fs;
        this.path = path;
        this.delegate = delegate;
        this.node = node;
        this.append = append;
        this.writeLock = node != null ? node : new Object();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        fs.ensurePowered();
        fs.faults().beforeRead(path, delegate.position());
        return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        fs.ensurePowered();
        fs.faults().beforeRead(path, delegate.position());
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        fs.ensurePowered();
        fs.faults().beforeRead(path, position);
        return delegate.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return write(src, -1L, true);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        return write(src, position, false);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        // Gathered into one buffer so a fault cuts the batch exactly once, as one writev would.
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
        }
        ByteBuffer joined = ByteBuffer.allocate((int) Math.min(total, Integer.MAX_VALUE));
        for (int i = offset; i < offset + length && joined.hasRemaining(); i++) {
            ByteBuffer part = srcs[i].duplicate();
            if (part.remaining() > joined.remaining()) {
                part.limit(part.position() + joined.remaining());
            }
            joined.put(part);
        }
        joined.flip();
        int written = write(joined);
        int left = written;
        for (int i = offset; i < offset + length && left > 0; i++) {
            int step = Math.min(left, srcs[i].remaining());
            srcs[i].position(srcs[i].position() + step);
            left -= step;
        }
        return written;
    }

    private int write(ByteBuffer src, long position, boolean atChannelPosition) throws IOException {
        fs.ensurePowered();
        Faults.WriteAllowance allowance = fs.faults().beforeWrite(path, src.remaining());
        if (allowance.bytes() == 0 && allowance.failure() != null) {
            throw allowance.failure();
        }
        int written;
        synchronized (writeLock) {
            fs.ensurePowered();
            ByteBuffer part = src.duplicate();
            part.limit(part.position() + allowance.bytes());
            long at = atChannelPosition ? (append ? delegate.size() : delegate.position()) : position;
            int start = part.position();
            written = atChannelPosition ? delegate.write(part) : delegate.write(part, position);
            if (node != null && written > 0) {
                ByteBuffer landed = src.duplicate();
                landed.position(start).limit(start + written);
                node.recordWrite(at, landed);
            }
            src.position(src.position() + written);
        }
        if (allowance.failure() != null) {
            throw allowance.failure();
        }
        return written;
    }

    @Override
    public long position() throws IOException {
        fs.ensurePowered();
        return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        fs.ensurePowered();
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        fs.ensurePowered();
        return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        fs.ensurePowered();
        synchronized (writeLock) {
            fs.ensurePowered();
            long before = delegate.size();
            delegate.truncate(size);
            if (node != null && size < before) {
                node.recordTruncate(size);
            }
        }
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        fs.ensurePowered();
        fs.forceCounts().record(path);
        fs.faults().beforeForce(path); // may hang or throw; before anything becomes durable
        fs.ensurePowered(); // the power may have gone while it hung
        // Not under the write lock: a real fsync does not stop other threads writing the file.
        long mark = node != null ? node.syncMark() : 0;
        delegate.force(metaData);
        if (node != null) {
            node.syncUpTo(mark);
        }
        // Power lost while syncing: the cut's image may predate this sync, so it must not succeed.
        fs.ensurePowered();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        fs.ensurePowered();
        fs.faults().beforeRead(path, position);
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        // Copied through write() so the bytes are fault-checked and recorded like any other write.
        fs.ensurePowered();
        long done = 0;
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(count, 64 * 1024));
        while (done < count) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
            int read = src.read(buffer);
            if (read <= 0) {
                break;
            }
            buffer.flip();
            while (buffer.hasRemaining()) {
                done += write(buffer, position + done);
            }
        }
        return done;
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        if (mode != MapMode.READ_ONLY) {
            throw new UnsupportedOperationException(
                    "writable mmap of " + path + " would bypass fault injection and the durable image");
        }
        fs.ensurePowered();
        fs.faults().beforeRead(path, position);
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        fs.ensurePowered();
        return new FaultyFileLock(this, delegate.lock(position, size, shared));
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        fs.ensurePowered();
        FileLock lock = delegate.tryLock(position, size, shared);
        return lock == null ? null : new FaultyFileLock(this, lock);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        try {
            delegate.close();
        } finally {
            fs.channelClosed(this);
        }
    }

    /** Power cut: the process's handles die with the machine. */
    void abandon() {
        try {
            delegate.close();
        } catch (IOException ignored) {
            // The channel is dead either way; ensurePowered() reports why on every later call.
        }
    }

    Path path() {
        return path;
    }
}
