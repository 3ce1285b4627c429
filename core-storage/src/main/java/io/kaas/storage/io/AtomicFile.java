package io.kaas.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Durable replacement of a small state file: write {@code name.tmp}, fsync it, rename over
 * {@code name}, fsync the directory. After {@link #write} returns, a power cut leaves either the old
 * or the new content, never a mix, and never neither.
 */
public final class AtomicFile {
    private AtomicFile() {}

    public static void write(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(target.getParent());
    }

    /**
     * Makes creates, renames and unlinks in {@code dir} durable. On the default filesystem a failure
     * is an error (the promise depends on it). Filesystems that cannot open a directory as a channel
     * (jimfs) have no durability to offer, so there it is skipped; the fault-injecting test
     * filesystem does support it and records the sync.
     */
    public static void fsyncDirectory(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            if (dir.getFileSystem() == FileSystems.getDefault()) {
                throw e;
            }
        }
    }
}
