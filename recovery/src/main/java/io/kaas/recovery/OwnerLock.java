package io.kaas.recovery;

import io.kaas.storage.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The offline side of partition ownership. A broker holds an OS lock on {@code <partition>/.lock}
 * while the partition is open; a command that changes files takes the same lock for as long as it
 * works, so a broker cannot open the partition under it either. A missing {@code .lock} file means no
 * broker has ever owned the directory (an Apache log dir, a copy): nothing to take, and the file is
 * not created, because offline tools change no byte they were not asked to.
 */
public final class OwnerLock implements AutoCloseable {
    public static final String FILE_NAME = ".lock";

    private final FileChannel channel;
    private final FileLock lock;

    private OwnerLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** A lock that holds nothing: for {@code --force} and for directories without a {@code .lock}. */
    public static OwnerLock none() {
        return new OwnerLock(null, null);
    }

    /** Takes the partition's lock, or throws {@link PartitionLockedException} when another process (or this one) holds it. */
    public static OwnerLock acquire(Path partitionDir) {
        Path file = partitionDir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return none();
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot open: " + PartitionSegments.describe(e), e);
        }
        try {
            FileLock lock = ch.tryLock();
            if (lock == null) {
                closeQuietly(ch);
                throw new PartitionLockedException(file);
            }
            return new OwnerLock(ch, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(ch);
            throw new PartitionLockedException(file);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new StorageException(StorageException.Kind.IO, file + ": cannot lock: " + PartitionSegments.describe(e), e);
        }
    }

    /** {@link #acquire} unless {@code force}, in which case nothing is checked or held. */
    public static OwnerLock acquire(Path partitionDir, boolean force) {
        return force ? none() : acquire(partitionDir);
    }

    public boolean held() {
        return lock != null;
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // already failing; the lock error is the one to report
        }
    }

    @Override
    public void close() {
        if (channel != null) {
            closeQuietly(channel); // closing the channel releases the lock
        }
    }
}
