package io.kaas.storage;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which dirs of a pool of several are offline, and taking one offline: Apache's log-dir failure handling
 * (KIP-112). The first I/O failure of a partition's files (a failed or stalled fsync, a roll or cleaner swap
 * that failed) is its dir's disk failing: the dir goes offline once, logged at ERROR naming it and the cause;
 * every partition of it fails at once (nothing more is acknowledged: an append waiting for an fsync of that
 * disk fails, since acks=all means fsynced) and is closed without another write; from then on each request
 * for one of its partitions is refused, and no new partition is placed there. Nothing brings it back at run
 * time: as in Apache, a restart does, and a dir still unusable then is offline from the start.
 *
 * <p>The home dir holds {@code __cluster/} (groups, transactions, the cluster's id): its failure is the
 * broker's, as Apache's broker halts when its metadata log dir fails; {@link #homeFailed} completes and the
 * broker stops. A pool of one dir keeps the partition's own sticky failure (the other partitions serve on).
 *
 * <p>It sits in front of the engine's {@link EngineObserver} (every event is passed on), which is how it hears
 * of partition failures. Thread-safe: a failure is reported on a committer, the fsync watchdog or an appender;
 * the partitions are closed on a {@code kaas-log-dir-offline-NAME} thread, which {@link #close} waits for.
 */
final class LogDirFailures implements EngineObserver {
    private static final Logger LOG = LoggerFactory.getLogger(LogDirFailures.class);

    private final LogDirs pool;
    private final EngineObserver next;
    /** Where a partition lives, if placed. */
    private final Function<TopicPartition, Optional<LogDir>> dirOf;
    /** Forgets the loaded partitions of a dir (none is served or listed again) and hands them over. */
    private final Function<LogDir, List<Partition>> forgetIn;

    /** Offline dirs by name, with why. */
    private final Map<String, String> offline = new ConcurrentHashMap<>();

    private final CompletableFuture<StorageException> homeFailed = new CompletableFuture<>();
    private final List<Thread> closers = new ArrayList<>();
    /** How long {@link #close} waits for a closer (one stuck behind a hung disk is left, a daemon). */
    private final Duration closeWait;

    LogDirFailures(
            LogDirs pool,
            Duration closeWait,
            EngineObserver next,
            Function<TopicPartition, Optional<LogDir>> dirOf,
            Function<LogDir, List<Partition>> forgetIn) {
        this.pool = pool;
        this.closeWait = closeWait;
        this.next = next;
        this.dirOf = dirOf;
        this.forgetIn = forgetIn;
    }

    /** Whether a failure of one partition takes its dir offline: only in a pool of several. */
    boolean handlesDirFailures() {
        return !pool.isSingle();
    }

    boolean isOffline(LogDir d) {
        return offline.containsKey(d.name());
    }

    boolean anyOffline() {
        return !offline.isEmpty();
    }

    /** The offline dirs, in pool order, with why. */
    Map<LogDir, String> offlineDirs() {
        Map<LogDir, String> out = new LinkedHashMap<>();
        for (LogDir d : pool.dirs()) {
            String why = offline.get(d.name());
            if (why != null) {
                out.put(d, why);
            }
        }
        return out;
    }

    /** Completes, once, when the home dir failed: the broker cannot go on. */
    CompletableFuture<StorageException> homeFailed() {
        return homeFailed;
    }

    /** Refuses {@code tp} when the dir it lives in is offline. */
    void checkOnline(TopicPartition tp) {
        Optional<LogDir> d = dirOf.apply(tp);
        if (d.isPresent() && isOffline(d.get())) {
            throw refusal(tp, d.get());
        }
    }

    /** The error every request for a partition of an offline dir gets. */
    StorageException refusal(TopicPartition tp, LogDir d) {
        return new StorageException(
                StorageException.Kind.IO,
                tp + ": log dir " + d.name() + " is offline (" + offline.get(d.name())
                        + "); its partitions are served again once the broker restarts with the dir repaired");
    }

    /** A dir that cannot be used at start (unreadable, not a directory, its lock not taken): offline from the start. */
    void offlineAtStart(LogDir d, String why) {
        if (offline.putIfAbsent(d.name(), why) == null) {
            LOG.error(
                    "log dir {} ({}) is offline from the start: {}; its partitions are not served until the broker"
                            + " restarts with the dir repaired",
                    d.name(),
                    d.path(),
                    why);
        }
    }

    @Override
    public void partitionFailed(TopicPartition partition, StorageException failure) {
        next.partitionFailed(partition, failure);
        if (handlesDirFailures()
                && (failure.kind() == StorageException.Kind.IO || failure.kind() == StorageException.Kind.STALLED)) {
            dirOf.apply(partition).ifPresent(d -> takeOffline(d, failure.getMessage()));
        }
    }

    /** Takes {@code d} offline (once): see the class comment. */
    void takeOffline(LogDir d, String why) {
        if (offline.putIfAbsent(d.name(), why) != null) {
            return;
        }
        if (d.equals(pool.home())) {
            LOG.error(
                    "log dir {} ({}) failed: {}; it is the home dir, holding __cluster/: the broker cannot go on",
                    d.name(),
                    d.path(),
                    why);
            homeFailed.complete(
                    new StorageException(StorageException.Kind.IO, "the home log dir " + d.path() + " failed: " + why));
            return;
        }
        LOG.error(
                "log dir {} ({}) is offline: {}; its partitions are closed without another write and refused"
                        + " until the broker restarts with the dir repaired; the other dirs serve on",
                d.name(),
                d.path(),
                why);
        List<Partition> in = forgetIn.apply(d);
        for (Partition p : in) {
            p.failOffline(refusal(p.id(), d));
        }
        Thread closer = new Thread(
                () -> {
                    for (Partition p : in) {
                        p.abandon();
                    }
                },
                "kaas-log-dir-offline-" + d.name());
        closer.setDaemon(true);
        synchronized (closers) {
            closers.add(closer);
        }
        closer.start();
    }

    /** Waits for the offline dirs' partitions to be closed (their files and locks let go). */
    void close() {
        List<Thread> all;
        synchronized (closers) {
            all = List.copyOf(closers);
        }
        for (Thread t : all) {
            try {
                t.join(closeWait.toMillis());
                if (t.isAlive()) {
                    LOG.warn(
                            "{} is still closing partitions after {} ms: left behind",
                            t.getName(),
                            closeWait.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ------------------------------------------------------------ the rest of the observer, passed on

    @Override
    public void fsynced(TopicPartition partition, long durationNanos, long appendsCovered) {
        next.fsynced(partition, durationNanos, appendsCovered);
    }

    @Override
    public void partitionOpened(
            TopicPartition partition, io.kaas.storage.recovery.RecoveryReport report, long durationNanos) {
        next.partitionOpened(partition, report, durationNanos);
    }

    @Override
    public void partitionOpenFailed(TopicPartition partition, StorageException failure) {
        next.partitionOpenFailed(partition, failure);
    }

    @Override
    public void cleaned(TopicPartition partition, io.kaas.storage.cleaner.CleanReport report, long durationNanos) {
        next.cleaned(partition, report, durationNanos);
    }

    @Override
    public void tripped(io.kaas.storage.format.CodecSite site, long count) {
        next.tripped(site, count);
    }
}
