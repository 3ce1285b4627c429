package io.kaas.storage;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.OwnerLock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The engine's log dirs as a pool (KIP-112, KIP-113): the OS lock it holds on each, the dirs that went offline
 * ({@link LogDirFailures}) and the moves of partitions between dirs ({@link LogDirMoves}), behind the entry
 * points {@link DiskStorageEngine} answers for them. A dir other than the home dir that cannot be opened at start
 * is offline from the start, when the pool handles dir failures; any other failure to open one refuses the start.
 */
final class EngineLogDirs {
    private final EngineConfig config;
    /** One OS lock per dir of the pool that opened. */
    private final List<OwnerLock> owners = new ArrayList<>();

    private final LogDirFailures failures;
    /** Made once the partitions exist ({@link #startMoves}), before the engine is published. */
    private LogDirMoves moves;

    /**
     * Creates and locks every dir. {@code dirOf} says where a partition is placed and {@code forgetIn} forgets a
     * dir's loaded partitions when it goes offline (both called only after the engine is built). On a failure
     * that refuses the start, the locks taken are let go before it is thrown.
     */
    EngineLogDirs(
            EngineConfig config,
            DirectoryOwnership ownership,
            EngineObserver observer,
            Function<TopicPartition, Optional<LogDir>> dirOf,
            Function<LogDir, List<Partition>> forgetIn) {
        this.config = config;
        this.failures = new LogDirFailures(config.logDirs(), config.fsyncTimeout(), observer, dirOf, forgetIn);
        for (LogDir d : config.logDirs().dirs()) {
            try {
                AtomicFile.createDirectories(d.path());
                owners.add(ownership.lockDirectory(d.path()));
            } catch (IOException | RuntimeException e) {
                if (failures.handlesDirFailures() && !d.equals(config.logDirs().home()) && diskFailure(e)) {
                    failures.offlineAtStart(d, "cannot open it: " + e.getMessage());
                    continue;
                }
                releaseLocks();
                throw e instanceof IOException io
                        ? new StorageException(
                                StorageException.Kind.IO,
                                d.path() + ": cannot open data directory: " + io.getMessage(),
                                io)
                        : (RuntimeException) e;
            }
        }
    }

    /** An I/O failure of the dir itself, not another process holding its lock (that refuses the start). */
    private static boolean diskFailure(Exception e) {
        return e instanceof IOException || (e instanceof StorageException se && se.kind() == StorageException.Kind.IO);
    }

    /** Which dirs are offline; the engine's observer, in front of the caller's, so it hears of partition failures. */
    LogDirFailures failures() {
        return failures;
    }

    void startMoves(OpenPartitions partitions, PartitionPlaces places, Function<String, TopicInfo> topics) {
        this.moves = new LogDirMoves(partitions, places, topics);
    }

    /**
     * Moves {@code tp} to {@code to} ({@link StorageEngine#moveToLogDir}); {@code open} loads the partition, so an
     * unknown, damaged or failed one is said now rather than by the future.
     */
    CompletableFuture<Void> move(TopicPartition tp, LogDir to, Function<TopicPartition, Partition> open) {
        if (!config.logDirs().dirs().contains(to)) {
            throw new IllegalArgumentException(to.path() + " is not a log dir of this engine");
        }
        Partition p = open.apply(tp);
        Optional<StorageException> failed = p.failure();
        if (failed.isPresent()) {
            throw failed.get();
        }
        return moves.move(tp, to);
    }

    Optional<FutureReplica> future(TopicPartition tp) {
        return moves.future(tp);
    }

    Map<LogDir, String> offlineDirs() {
        return failures.offlineDirs();
    }

    CompletableFuture<StorageException> homeFailed() {
        return failures.homeFailed();
    }

    /** Stops moving: one between rounds is dropped, a switch under way ends first. */
    void stopMoves() {
        moves.close();
    }

    /** Waits for the offline dirs' partitions to be closed. */
    void awaitOfflineClosed() {
        failures.close();
    }

    void releaseLocks() {
        owners.forEach(OwnerLock::close);
    }
}
