package io.kaas.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An exclusive OS lock held for one read-modify-write of a state file that several processes change:
 * {@code __cluster/acls.json}, {@code credentials.json} and {@code client-quotas.json} are rewritten by
 * every broker of a shared data directory and by the offline {@code kaas acl}/{@code kaas user} while a
 * broker runs. {@link AtomicFile} makes each write whole, but two writers that each read, change and
 * write would lose one change; under this lock the second reads what the first wrote.
 *
 * <p>The lock is on {@code <file>.lock} beside the file (never the file itself, which an atomic write
 * replaces), created on first use and left in place. Waiting polls {@link FileChannel#tryLock}, because
 * the JVM refuses a second lock on the same file from the same process ({@link
 * OverlappingFileLockException}) instead of queueing it: two stores in one process (brokers of one test
 * JVM) then wait for each other as two processes do. An NFS mount carries these locks only with a lock
 * service (NFSv4, or lockd for v3); without one they exclude writers of the same machine only.
 */
public final class StateFileLock implements AutoCloseable {
    /** Longer than any one rewrite (a read, a write and two fsyncs) takes on a healthy disk. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final FileChannel channel;
    private final FileLock lock;

    private StateFileLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock file of {@code stateFile}: {@code <name>.lock} in the same directory. */
    public static Path lockFileOf(Path stateFile) {
        return stateFile.resolveSibling(stateFile.getFileName() + ".lock");
    }

    /** Takes the lock of {@code stateFile}, waiting at most {@link #DEFAULT_WAIT}. */
    public static StateFileLock exclusive(Path stateFile) {
        return exclusive(stateFile, DEFAULT_WAIT);
    }

    /**
     * Takes the lock of {@code stateFile}, waiting at most {@code wait}. Creates the file's directory
     * when missing, durably ({@link AtomicFile#createDirectories}): a change answered after the write must
     * not vanish with a directory entry a power cut took back.
     *
     * @throws StorageException {@link StorageException.Kind#LOCKED} naming the lock file when another
     *                          writer held it for all of {@code wait}; {@link StorageException.Kind#IO} when it cannot be opened
     */
    public static StateFileLock exclusive(Path stateFile, Duration wait) {
        Path file = lockFileOf(stateFile);
        FileChannel ch;
        try {
            AtomicFile.createDirectories(file.getParent());
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException | UnsupportedOperationException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot open: " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (true) {
                FileLock held = tryLock(ch);
                if (held != null) {
                    return new StateFileLock(ch, held);
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new StorageException(
                            StorageException.Kind.LOCKED,
                            file + ": another writer held it for more than " + wait.toMillis() + " ms; "
                                    + stateFile.getFileName() + " was not changed");
                }
                LockSupport.parkNanos(POLL_NANOS);
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new StorageException(
                            StorageException.Kind.LOCKED, file + ": interrupted while waiting for it");
                }
            }
        } catch (RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    private static FileLock tryLock(FileChannel ch) {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // held by another channel of this process: wait as for another process
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, "cannot lock: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // nothing held any more
        }
    }
}
