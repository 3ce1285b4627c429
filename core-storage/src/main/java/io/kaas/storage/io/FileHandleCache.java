package io.kaas.storage.io;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's file-handle budget: every segment file the engine reads or writes is a {@link CachedFile}
 * opened on demand, and when more than {@link #ceiling()} channels are open the least recently used
 * idle ones are closed. Idle means no reader, writer or zero-copy send holds the channel (it is
 * reference-counted, see {@link CachedFile.Handle}); clean channels go first, and one still holding
 * bytes not yet fsynced is fsynced through itself before it closes. So the ceiling is soft only by
 * the channels in use at that moment (reads and writes in progress, and zero-copy sends, which may
 * hold at most half the ceiling: {@link #tryStartSend}).
 *
 * <p>Thread-safe, and holds no thread: eviction runs on the thread whose open crossed the ceiling, one
 * thread at a time (the others go on). The closing itself is a close(2) of a clean file.
 */
public final class FileHandleCache {
    /** Used when the process limit cannot be read (not a Unix JVM). */
    static final int FALLBACK_CEILING = 4096;

    private static final int MIN_CEILING = 16;

    private final int ceiling;
    /** Files whose current channel is open: the eviction candidates. */
    private final Set<CachedFile> openFiles = ConcurrentHashMap.newKeySet();
    /** Open channels, including those of retired files still held by a send. */
    private final AtomicInteger openChannels = new AtomicInteger();

    private final AtomicLong opens = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicInteger sends = new AtomicInteger();
    private final ReentrantLock evicting = new ReentrantLock();

    public FileHandleCache(int ceiling) {
        if (ceiling < MIN_CEILING) {
            throw new IllegalArgumentException(
                    "the open-file ceiling must be at least " + MIN_CEILING + ", got " + ceiling);
        }
        this.ceiling = ceiling;
    }

    /**
     * 40% of the process's file-descriptor limit ({@code ulimit -n}, read once), leaving the rest to
     * sockets, the JVM's own jars, what the broker opens beside the segments (state files, the lock,
     * recovery scans) and the handles in use past the ceiling. Under {@code ulimit -n 20000} that is
     * 8,000, so the whole process stays under half the limit.
     */
    public static int defaultCeiling() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            long limit = unix.getMaxFileDescriptorCount();
            return (int) Math.max(MIN_CEILING, Math.min(limit * 2 / 5, 1 << 20));
        }
        return FALLBACK_CEILING;
    }

    /**
     * A file opened with {@code options} on first use.
     *
     * @param owner says whether the channel holds unsynced bytes, fsyncs them before eviction closes it,
     *              and hears of the eviction
     */
    public CachedFile file(Path path, CachedFile.Owner owner, OpenOption... options) {
        return new CachedFile(this, path, owner, options);
    }

    /** A file that may always be closed when idle. */
    public CachedFile file(Path path, OpenOption... options) {
        return file(path, CachedFile.Owner.ANY, options);
    }

    /**
     * Reserves a place for a zero-copy send, which holds its channel until the bytes are on the socket:
     * false when sends already hold half the ceiling (the caller copies instead, so a Fetch over thousands
     * of partitions cannot pin thousands of files). Every true is followed by one {@link #endSend}.
     */
    public boolean tryStartSend() {
        for (; ; ) {
            int n = sends.get();
            if (n >= ceiling / 2) {
                return false;
            }
            if (sends.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void endSend() {
        sends.decrementAndGet();
    }

    /** Zero-copy sends holding a channel now. */
    public int sendsInFlight() {
        return sends.get();
    }

    public int ceiling() {
        return ceiling;
    }

    /** Channels open now (segment logs and indexes; not the lock or state files, which are opened and closed at once). */
    public int openChannels() {
        return openChannels.get();
    }

    /** Channels opened since start (a reopen after eviction counts again). */
    public long opens() {
        return opens.get();
    }

    public long evictions() {
        return evictions.get();
    }

    void opened(CachedFile f) {
        opens.incrementAndGet();
        openFiles.add(f);
        if (openChannels.incrementAndGet() > ceiling) {
            evictIdle();
        }
    }

    /** A channel closed; {@code wasCurrent}: it was {@code f}'s current one (not a retired file's leftover). */
    void closed(CachedFile f, boolean wasCurrent) {
        if (wasCurrent) {
            openFiles.remove(f);
        }
        openChannels.decrementAndGet();
    }

    void evicted() {
        evictions.incrementAndGet();
    }

    /**
     * Closes idle channels, least recently used first, until a sixteenth of the ceiling is free, so
     * the scan (a sort of the open files) runs once per many opens, not on each.
     */
    private void evictIdle() {
        if (!evicting.tryLock()) {
            return; // another thread is at it
        }
        try {
            if (openChannels.get() <= ceiling) {
                return;
            }
            int target = ceiling - Math.max(1, ceiling / 16);
            // Snapshot the use times first: they change under us, and a sort needs stable keys.
            List<Candidate> candidates = new ArrayList<>(openFiles.size());
            for (CachedFile f : openFiles) {
                candidates.add(new Candidate(f, f.lastUsed()));
            }
            Candidate[] byAge = candidates.toArray(new Candidate[0]);
            Arrays.sort(byAge, Comparator.comparingLong(Candidate::lastUsed));
            // Clean channels first; only if they cannot make room are unsynced ones fsynced and closed.
            for (boolean syncDirty : new boolean[] {false, true}) {
                for (Candidate c : byAge) {
                    if (openChannels.get() <= target) {
                        return;
                    }
                    c.file().evictIfIdle(syncDirty);
                }
            }
        } finally {
            evicting.unlock();
        }
    }

    private record Candidate(CachedFile file, long lastUsed) {}
}
