package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What {@code FileChannel.open(dir, READ)} returns: jimfs cannot open a directory as a channel, and
 * the only thing the engine does with one is {@code force()}, which here makes the directory's
 * entries durable (and, on the default filesystem, really fsyncs it). Reads and writes throw EISDIR.
 */
final class DirectorySyncChannel extends FileChannel {
    private final FaultyFileSystem fs;
    private final Path path;
    private final DirNode node; // null when outside the tracked trees

    DirectorySyncChannel(FaultyFileSystem fs, Path path, DirNode node) {
        this.fs = fs;
        this.path = path;
        this.node = node;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        fs.ensurePowered();
        fs.forceCounts().record(path);
        fs.faults().beforeForce(path);
        fs.ensurePowered(); // the power may have gone while it hung
        if (path.getFileSystem() == FileSystems.getDefault()) {
            try (FileChannel real = FileChannel.open(path, StandardOpenOption.READ)) {
                real.force(metaData);
            }
        }
        if (node != null) {
            fs.image().syncDirectory(node);
        }
        fs.ensurePowered(); // as for files: a sync racing a power cut must not report success
    }

    private IOException isDirectory() {
        return new FileSystemException(path.toString(), null, "Is a directory");
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        throw isDirectory();
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        throw isDirectory();
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        throw isDirectory();
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        throw isDirectory();
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        throw isDirectory();
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        throw isDirectory();
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    public FileChannel position(long newPosition) {
        return this;
    }

    @Override
    public long size() {
        return 0;
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        throw isDirectory();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        throw isDirectory();
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        throw isDirectory();
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        throw isDirectory();
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        throw isDirectory();
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        throw isDirectory();
    }

    @Override
    protected void implCloseChannel() {
        // Holds no delegate resource.
    }
}
