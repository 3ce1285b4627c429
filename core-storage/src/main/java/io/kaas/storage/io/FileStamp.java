package io.kaas.storage.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * What identifies one version of a state file that other processes rewrite: its inode (an atomic write
 * puts a new one in place, {@link AtomicFile}), modification time and size. The time and size alone
 * miss a same-size rewrite within the filesystem's time granularity; the inode does not. A reader that
 * keeps a parsed copy re-reads the file when the stamp differs from the one it loaded.
 *
 * @param fileKey the filesystem's identity of the file (an inode and device), or null where it has none
 */
public record FileStamp(Object fileKey, FileTime modified, long size) {

    /** The stamp of {@code file} now; empty when there is no such file. */
    public static Optional<FileStamp> of(Path file) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return Optional.of(new FileStamp(a.fileKey(), a.lastModifiedTime(), a.size()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }
}
