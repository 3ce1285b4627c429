package io.kaas.storage.format;

import io.kaas.storage.io.FileStamp;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A JSON state file ({@link StateJson}) that several processes rewrite: the brokers of a shared data directory and
 * the offline commands, e.g. {@code __cluster/credentials.json}, {@code delegation-tokens.json},
 * {@code group-configs.json}, {@code features.json}. The one home of two rules:
 *
 * <ul>
 *   <li><b>Reads see other writers' changes.</b> {@link #current} stats the file and reads it again when its
 *       {@link FileStamp} changed. The stamp is taken <i>before</i> the read, so a change written between the two is
 *       seen again at the next call rather than missed (the modification time alone can stay equal across two
 *       writes in one clock tick).
 *   <li><b>No change is lost.</b> {@link #update} holds the file's {@link StateFileLock} from the read of what is on
 *       disk to the atomic, fsynced write of the result, so two writers never both start from the same version.
 * </ul>
 *
 * Thread-safe; {@link #current} returns the same instance while the file is unchanged, so a caller may keep what
 * it derives from it keyed by identity.
 *
 * @param <T> the file's record; {@code equals} decides whether a change changed anything
 */
public final class SharedStateFile<T> {
    private static final long RECHECK_NANOS = 1_000_000_000L;

    private final Path file;
    private final Class<T> type;
    private final T absent;
    private final boolean ownerOnly;
    // Guarded by this: the content last read or written, and the stamp of the file it came from (empty: no file).
    private T value;
    private Optional<FileStamp> loaded;
    private long checkedNanos;

    private SharedStateFile(Path file, Class<T> type, T absent, boolean ownerOnly) {
        this.file = file;
        this.type = type;
        this.absent = absent;
        this.ownerOnly = ownerOnly;
    }

    /** {@code absent}: the content while there is no file (may be null). */
    public static <T> SharedStateFile<T> of(Path file, Class<T> type, T absent) {
        return new SharedStateFile<>(file, type, absent, false);
    }

    /** As {@link #of}, the file narrowed to rw------- after each write: it holds secrets (keys, token HMACs). */
    public static <T> SharedStateFile<T> ownerOnly(Path file, Class<T> type, T absent) {
        return new SharedStateFile<>(file, type, absent, true);
    }

    public Path file() {
        return file;
    }

    /**
     * As {@link #current}, with the file looked at no more than once a second: for request paths (every group
     * heartbeat reads group configs), where another writer's change seen within a second is soon enough.
     */
    public synchronized T recent() {
        if (loaded != null && System.nanoTime() - checkedNanos < RECHECK_NANOS) {
            return value;
        }
        return current();
    }

    /** The content now: read again when the file changed since it was last read (one stat per call). */
    public synchronized T current() {
        checkedNanos = System.nanoTime();
        Optional<FileStamp> now = stamp();
        if (loaded == null || !now.equals(loaded)) {
            reload(now);
        }
        return value;
    }

    /**
     * Applies {@code change} to the content on disk now and writes the result when it differs, under the file's
     * lock; returns the content after. {@code change} may throw to refuse: nothing is written then.
     */
    public synchronized T update(UnaryOperator<T> change) {
        try (StateFileLock held = StateFileLock.exclusive(file)) {
            reload(stamp());
            T next = change.apply(value);
            if (!Objects.equals(next, value)) {
                StateJson.write(file, next);
                narrow();
                value = next;
                loaded = stamp();
            }
            return value;
        }
    }

    /** Reads the file, whatever its stamp; {@code before} was taken before the read. */
    private void reload(Optional<FileStamp> before) {
        value = StateJson.read(file, type).orElse(absent);
        loaded = before;
    }

    private void narrow() {
        if (!ownerOnly) {
            return;
        }
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX filesystem (the in-memory engine, Windows): nothing to narrow
        }
    }

    private Optional<FileStamp> stamp() {
        try {
            return FileStamp.of(file);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
