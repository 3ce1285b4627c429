package io.kaas.storage.layout;

import io.kaas.storage.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Ownership of a partition directory: an OS lock on {@code <partition>/.lock}, held by the broker while
 * the partition is open and by an offline command for as long as it changes files, so neither can work
 * under the other. Closing releases it.
 *
 * <p>Two ways in. {@link #acquire} is the engine's: the file is created if missing and the lock must be
 * taken. {@link #acquireIfOwned} is the offline tools': a missing {@code .lock} means no broker ever
 * owned the directory (an Apache log dir, a copy), so there is nothing to take and the file is not
 * created, because offline tools change no byte they were not asked to; {@code --force} and
 * {@code --dry-run} skip the lock altogether.
 */
public final class OwnerLock implements AutoCloseable {
    public static final String FILE_NAME = ".lock";

    private final FileChannel channel;
    private final FileLock lock;

    private OwnerLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** A lock that holds nothing: for {@code --force}, {@code --dry-run} and directories without a {@code .lock}. */
    public static OwnerLock none() {
        return new OwnerLock(null, null);
    }

    /**
     * The engine's way: creates {@code .lock} when missing and takes it.
     *
     * @throws StorageException of kind {@link StorageException.Kind#LOCKED} when another process (or another
     *                          channel of this one) holds it, {@link StorageException.Kind#IO} when it cannot be opened
     */
    public static OwnerLock acquire(Path partitionDir) {
        Path file = partitionDir.resolve(FILE_NAME);
        FileChannel ch = open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = tryLock(ch, file);
        if (held == null) {
            throw new StorageException(StorageException.Kind.LOCKED, partitionDir + ": another process holds " + FILE_NAME);
        }
        return new OwnerLock(ch, held);
    }

    /**
     * The offline tools' way: nothing is checked or held when {@code skip} ({@code --force}, {@code --dry-run})
     * or when the directory has no {@code .lock}; otherwise the lock is taken.
     *
     * @throws PartitionLockedException (kind {@link StorageException.Kind#LOCKED}) when a broker holds it
     */
    public static OwnerLock acquireIfOwned(Path partitionDir, boolean skip) {
        Path file = partitionDir.resolve(FILE_NAME);
        if (skip || !Files.isRegularFile(file)) {
            return none();
        }
        FileChannel ch = open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock held = tryLock(ch, file);
        if (held == null) {
            throw new PartitionLockedException(file);
        }
        return new OwnerLock(ch, held);
    }

    private static FileChannel open(Path file, StandardOpenOption... options) {
        try {
            return FileChannel.open(file, options);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot open: " + PartitionSegments.describe(e), e);
        }
    }

    /** The lock, or null (channel closed) when someone else holds it. */
    private static FileLock tryLock(FileChannel ch, Path file) {
        try {
            FileLock held = ch.tryLock();
            if (held == null) {
                closeQuietly(ch);
            }
            return held;
        } catch (OverlappingFileLockException e) {
            closeQuietly(ch);
            return null;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new StorageException(StorageException.Kind.IO, file + ": cannot lock: " + PartitionSegments.describe(e), e);
        }
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
