package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Ownership of partition directories: OS locks on {@code .lock} files, so a broker and an offline
 * command never change the same partition at once. Closing releases every lock held.
 *
 * <p>A running engine holds <b>one</b> lock for its whole data directory, {@code <data>/.lock}
 * ({@link #acquireDataDir}): a descriptor per partition would cap the partitions a broker can hold at
 * the process's file limit. A partition opened on its own, outside an engine ({@link #acquire}: tests,
 * benchmarks), holds {@code <partition>/.lock} and is refused while an engine holds the data directory.
 * The offline tools ({@link #acquireIfOwned}) take both: the data directory's (when the partition sits in
 * one that has a {@code .lock}) and the partition's own (when it has one), for as long as they change
 * files, so neither a running broker nor a lone partition can work under them.
 *
 * <p>A missing {@code .lock} means no broker ever owned the directory (an Apache log dir, a copy), so
 * the tools take nothing there and create no file, because offline tools change no byte they were not
 * asked to; {@code --force} and {@code --dry-run} skip the locks altogether.
 */
public final class OwnerLock implements AutoCloseable {
    public static final String FILE_NAME = ".lock";

    private final FileChannel channel;
    private final FileLock lock;
    /** A second lock held with this one (the offline tools hold the data directory's and the partition's). */
    private final OwnerLock also;

    private OwnerLock(FileChannel channel, FileLock lock, OwnerLock also) {
        this.channel = channel;
        this.lock = lock;
        this.also = also;
    }

    /** A lock that holds nothing: for {@code --force}, {@code --dry-run} and directories without a {@code .lock}. */
    public static OwnerLock none() {
        return new OwnerLock(null, null, null);
    }

    /**
     * The engine's way: creates {@code <data>/.lock} when missing and takes it, for every partition below.
     *
     * @throws StorageException of kind {@link StorageException.Kind#LOCKED} when another process (or another
     *                          engine of this one) holds it, {@link StorageException.Kind#IO} when it cannot be opened
     */
    public static OwnerLock acquireDataDir(Path dataDir) {
        return take(dataDir, dataDir.resolve(FILE_NAME));
    }

    /**
     * A partition opened outside an engine: creates {@code <partition>/.lock} when missing and takes it,
     * after checking that no engine holds the data directory the partition sits in.
     *
     * @throws StorageException of kind {@link StorageException.Kind#LOCKED} when another process (or another
     *                          channel of this one) holds either, {@link StorageException.Kind#IO} when it cannot be opened
     */
    public static OwnerLock acquire(Path partitionDir) {
        OwnerLock own = take(partitionDir, partitionDir.resolve(FILE_NAME));
        Optional<Path> dataLock = dataDirLock(partitionDir);
        if (dataLock.isPresent()) {
            FileChannel ch = open(dataLock.get(), StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock held = tryLock(ch, dataLock.get());
            if (held == null) {
                own.close();
                throw new StorageException(
                        StorageException.Kind.LOCKED, partitionDir + ": a running engine holds " + dataLock.get());
            }
            closeQuietly(ch); // only checked: the partition's own lock is what this open holds
        }
        return own;
    }

    private static OwnerLock take(Path owned, Path file) {
        FileChannel ch = open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = tryLock(ch, file);
        if (held == null) {
            throw new StorageException(StorageException.Kind.LOCKED, owned + ": another process holds " + FILE_NAME);
        }
        return new OwnerLock(ch, held, null);
    }

    /**
     * The offline tools' way: nothing is checked or held when {@code skip} ({@code --force}, {@code --dry-run});
     * otherwise the data directory's {@code .lock} and the partition's are taken, each when it exists.
     *
     * @throws PartitionLockedException (kind {@link StorageException.Kind#LOCKED}) when a broker holds either
     */
    public static OwnerLock acquireIfOwned(Path partitionDir, boolean skip) {
        if (skip) {
            return none();
        }
        OwnerLock data = dataDirLock(partitionDir).map(OwnerLock::takeExisting).orElseGet(OwnerLock::none);
        try {
            OwnerLock own = takeExisting(partitionDir.resolve(FILE_NAME));
            return new OwnerLock(own.channel, own.lock, data);
        } catch (RuntimeException e) {
            data.close();
            throw e;
        }
    }

    /**
     * Whether a running engine (or a partition opened on its own) holds the partition now: the read-only
     * tools' question ({@code verify} beside a broker), answered without writing or creating a file. It
     * takes a shared lock on a read-only channel for an instant and lets it go; a held exclusive lock
     * refuses it, as does a lock of this very process (an engine in the same JVM).
     */
    public static boolean inUse(Path partitionDir) {
        Optional<Path> data = dataDirLock(partitionDir);
        return (data.isPresent() && heldElsewhere(data.get())) || heldElsewhere(partitionDir.resolve(FILE_NAME));
    }

    private static boolean heldElsewhere(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FileLock probe = ch.tryLock(0, Long.MAX_VALUE, true);
            if (probe == null) {
                return true;
            }
            probe.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return false; // cannot tell: treated as not in use, so what verify finds is reported
        }
    }

    /**
     * The offline tools' way for state beside the topics ({@code __cluster}): the data directory's
     * {@code .lock} when it exists, so no running broker changes the same file; nothing when it does not.
     *
     * @throws StorageException of kind {@link StorageException.Kind#LOCKED} when a broker holds it
     */
    public static OwnerLock acquireDataDirIfOwned(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return none();
        }
        FileChannel ch = open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock held = tryLock(ch, file);
        if (held == null) {
            throw new StorageException(
                    StorageException.Kind.LOCKED,
                    dataDir + ": owned by a running broker (" + FILE_NAME
                            + " held); stop it, or make the change online");
        }
        return new OwnerLock(ch, held, null);
    }

    private static OwnerLock takeExisting(Path file) {
        if (!Files.isRegularFile(file)) {
            return none();
        }
        FileChannel ch = open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock held = tryLock(ch, file);
        if (held == null) {
            throw new PartitionLockedException(file);
        }
        return new OwnerLock(ch, held, null);
    }

    /**
     * {@code <data>/.lock} for a partition directory laid out as {@code <data>/<topic>/<n>} whose data
     * directory has one; empty for anything else (an Apache {@code <topic>-<n>} dir, a copy elsewhere).
     */
    static Optional<Path> dataDirLock(Path partitionDir) {
        Path abs = partitionDir.toAbsolutePath();
        Path topic = abs.getParent();
        if (abs.getFileName() == null
                || topic == null
                || topic.getFileName() == null
                || topic.getParent() == null
                || TopicDir.partitionIndex(abs.getFileName().toString()).isEmpty()
                || !TopicDir.isTopic(topic.getFileName().toString())) {
            return Optional.empty();
        }
        Path file = topic.getParent().resolve(FILE_NAME);
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    private static FileChannel open(Path file, StandardOpenOption... options) {
        try {
            return FileChannel.open(file, options);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file + ": cannot open: " + PartitionSegments.describe(e), e);
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
            throw new StorageException(
                    StorageException.Kind.IO, file + ": cannot lock: " + PartitionSegments.describe(e), e);
        }
    }

    public boolean held() {
        return lock != null || (also != null && also.held());
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
        if (also != null) {
            also.close();
        }
    }
}
