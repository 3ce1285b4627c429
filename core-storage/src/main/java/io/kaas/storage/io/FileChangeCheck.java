package io.kaas.storage.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a state file that other processes rewrite changed since it was last loaded, looked at no
 * more than once per interval: a broker keeps a parsed copy of {@code acls.json} or
 * {@code client-quotas.json} and asks on its request path, where one {@code stat} a second is the
 * price of seeing another broker's or an offline tool's change within about a second. Thread-safe.
 */
public final class FileChangeCheck {
    /** How often, at most, a caller's {@link #changed} stats the file. */
    public static final long DEFAULT_INTERVAL_NANOS = 1_000_000_000L;

    private final Path file;
    private final long intervalNanos;
    private volatile long nextCheckNanos;
    /** The stamp of the version last loaded (null: no file, or not known); guarded by this. */
    private FileStamp loaded;

    /**
     * Starts from the file as it is now: take this before reading the file, so a change made between
     * the stamp and the read is seen again at the next check rather than missed.
     */
    public FileChangeCheck(Path file, long intervalNanos) {
        this.file = file;
        this.intervalNanos = intervalNanos;
        this.loaded = stampOrNull();
        this.nextCheckNanos = System.nanoTime() + intervalNanos;
    }

    public Path file() {
        return file;
    }

    /**
     * True when the interval has passed and the file's {@link FileStamp} differs from the last one seen;
     * the new stamp is then taken as loaded, so the caller must (re)load the file now. The lock-free
     * fast path between checks is one volatile read.
     */
    public boolean changed() {
        return System.nanoTime() - nextCheckNanos >= 0 && changedNow();
    }

    /** As {@link #changed}, whatever the time since the last check: before a change of the caller's own. */
    public synchronized boolean changedNow() {
        nextCheckNanos = System.nanoTime() + intervalNanos;
        FileStamp now = stampOrNull();
        if (Objects.equals(now, loaded)) {
            return false;
        }
        loaded = now;
        return true;
    }

    private FileStamp stampOrNull() {
        try {
            return FileStamp.of(file).orElse(null);
        } catch (IOException e) {
            return null; // unreadable now: the next check tries again, the loaded copy stays
        }
    }

    /** The stamp last taken as loaded, if any (tests). */
    synchronized Optional<FileStamp> loaded() {
        return Optional.ofNullable(loaded);
    }
}
