package io.kaas.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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
    /** The suffix of a replacement not yet renamed into place; one left by a crash is garbage. */
    public static final String TMP_SUFFIX = ".tmp";

    private AtomicFile() {}

    public static void write(Path target, byte[] content) throws IOException {
        replace(writeTemporary(target, content), target);
        fsyncDirectory(target.getParent());
    }

    /**
     * The first half of {@link #write}: {@code name.tmp} written and fsynced, not yet in place. Writers that
     * replace several files of one directory together ({@link CoalescingStateFiles}) do this for each, then
     * {@link #replace} each, then one {@link #fsyncDirectory}.
     */
    public static Path writeTemporary(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + TMP_SUFFIX);
        try (FileChannel ch = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        return tmp;
    }

    /** Renames {@code tmp} (from {@link #writeTemporary}) over {@code target}; durable after the directory's fsync. */
    public static void replace(Path tmp, Path target) throws IOException {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Makes creates, renames and unlinks in {@code dir} durable. A failure is an error (the promise
     * depends on it), except on jimfs, which cannot open a directory as a channel and has no
     * durability to offer (dev mode). The fault-injecting test filesystem supports it and records it.
     */
    public static void fsyncDirectory(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            if (!"jimfs".equals(dir.getFileSystem().provider().getScheme())) {
                throw e;
            }
        }
    }

    /**
     * {@code Files.createDirectories}, durably: each directory it creates is made durable by an
     * fsync of its parent, so a power cut cannot take back a directory the engine already used.
     * Another writer (a thread, or a broker sharing the directory) may create one at the same moment:
     * then it exists, and its parent is fsynced all the same, since the other may not have got there yet.
     */
    public static void createDirectories(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        java.util.ArrayDeque<Path> missing = new java.util.ArrayDeque<>();
        for (Path p = abs; p != null && !java.nio.file.Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        while (!missing.isEmpty()) {
            Path p = missing.pop();
            try {
                java.nio.file.Files.createDirectory(p);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (!java.nio.file.Files.isDirectory(p)) {
                    throw e;
                }
            }
            fsyncDirectory(p.getParent());
        }
    }
}
