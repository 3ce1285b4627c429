package io.kaas.storage;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.PartitionMove;
import io.kaas.storage.layout.TopicDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves partitions between the log dirs of a disk engine's pool while they are served (AlterReplicaLogDirs,
 * KIP-113), one at a time on the {@code kaas-log-dir-mover} thread this object owns. A move, in the order
 * {@link PartitionMove} makes durable:
 * <ol>
 *   <li>copies the partition's directory into the target's {@code <n>.future} in rounds ({@link PartitionCopy}) while
 *       appends go on, until a round has little left to copy;
 *   <li>the switch ({@link OpenPartitions#replace}): the partition is closed cleanly (under its lock: in-flight
 *       appends end, every acknowledgement is fsynced, the manifest written), the last round copies the tail and
 *       state files, the copy is committed by one durable rename, and the partition opens from there; appends and
 *       reads that come meanwhile wait for it, or are handed to it;
 *   <li>the old copy is removed, last.
 * </ol>
 * A failure before the commit removes the copy and opens the partition where it was. Asking again for another dir
 * while a move runs retargets it: the copy in progress is dropped before its commit.
 */
final class LogDirMoves implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogDirMoves.class);
    /** A round that copied less than this catches the copy up close enough for the switch to be short. */
    private static final long CAUGHT_UP_BYTES = 4L << 20;

    private static final int MAX_ROUNDS = 50;

    /** One partition's move: where it is wanted, and its copy while one is made. */
    private static final class Move {
        volatile LogDir wanted;
        volatile LogDir copyingTo;
        volatile PartitionCopy copy;
        volatile Partition partition;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Move(LogDir wanted) {
            this.wanted = wanted;
        }
    }

    private final OpenPartitions partitions;
    private final PartitionPlaces places;
    private final Function<String, TopicInfo> topics;
    private final Map<TopicPartition, Move> moves = new ConcurrentHashMap<>();
    private final ExecutorService mover = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kaas-log-dir-mover");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;

    LogDirMoves(OpenPartitions partitions, PartitionPlaces places, Function<String, TopicInfo> topics) {
        this.partitions = partitions;
        this.places = places;
        this.topics = topics;
    }

    /** Moves {@code tp} to {@code to} (a dir of the pool), in the background; a no-op when it is there already. */
    CompletableFuture<Void> move(TopicPartition tp, LogDir to) {
        if (places.dirOf(tp).filter(to::equals).isPresent() && !moves.containsKey(tp)) {
            return CompletableFuture.completedFuture(null);
        }
        boolean[] started = {false};
        Move move = moves.compute(tp, (k, m) -> {
            if (m == null) {
                started[0] = true;
                return new Move(to);
            }
            m.wanted = to;
            return m;
        });
        if (started[0]) {
            try {
                mover.execute(() -> run(tp));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                moves.remove(tp, move);
                move.done.completeExceptionally(
                        new StorageException(StorageException.Kind.CLOSED, "the storage engine is closed"));
            }
        }
        return move.done;
    }

    /** The copy being made of {@code tp}, while a move runs. */
    Optional<FutureReplica> future(TopicPartition tp) {
        Move m = moves.get(tp);
        if (m == null || m.copy == null || m.copyingTo == null) {
            return Optional.empty();
        }
        long lag = 0;
        long base = m.copy.firstIncompleteBase();
        if (base >= 0 && m.partition != null) {
            lag = Math.max(0, m.partition.state().highWatermark() - base);
        }
        return Optional.of(new FutureReplica(m.copyingTo, m.copy.copiedBytes(), lag));
    }

    private void run(TopicPartition tp) {
        Move m = moves.get(tp);
        Throwable failed = null;
        try {
            while (!closed) {
                LogDir to = m.wanted;
                Optional<LogDir> at = places.dirOf(tp);
                if (at.isEmpty() || at.get().equals(to)) {
                    // Done, unless asked meanwhile for another dir (atomically with move's compute).
                    if (moves.computeIfPresent(tp, (k, v) -> v.wanted.equals(at.orElse(null)) ? null : v) == null) {
                        break;
                    }
                    continue;
                }
                moveOnce(tp, m, at.get(), to);
            }
            if (closed) {
                failed = new StorageException(StorageException.Kind.CLOSED, tp + ": the engine closed during a move");
            }
        } catch (IOException | RuntimeException e) {
            failed = e;
            if (!closed) {
                LOG.warn("{}: log dir move failed, the partition stays where it was: {}", tp, e.getMessage());
            }
        } finally {
            moves.remove(tp);
        }
        if (failed == null) {
            m.done.complete(null);
        } else {
            m.done.completeExceptionally(failed);
        }
    }

    private void moveOnce(TopicPartition tp, Move m, LogDir from, LogDir to) throws IOException {
        TopicInfo info = topics.apply(tp.topic());
        if (info == null) {
            throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + tp);
        }
        Partition p = partitions.open(tp);
        long start = System.nanoTime();
        places.prepareTopicDir(info, to);
        PartitionMove.rollBack(to.path(), tp.topic(), tp.partition());
        Path staging = PartitionMove.future(to.path(), tp.topic(), tp.partition());
        AtomicFile.createDirectories(staging);
        PartitionCopy copy = new PartitionCopy(p.dir(), staging);
        m.partition = p;
        m.copyingTo = to;
        m.copy = copy;
        try {
            for (int round = 0; round < MAX_ROUNDS && copy.round(false) >= CAUGHT_UP_BYTES; round++) {
                if (closed || !to.equals(m.wanted)) {
                    PartitionMove.rollBack(to.path(), tp.topic(), tp.partition());
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            PartitionMove.rollBack(to.path(), tp.topic(), tp.partition());
            throw e;
        }
        if (closed || !to.equals(m.wanted)) {
            PartitionMove.rollBack(to.path(), tp.topic(), tp.partition());
            return;
        }
        boolean[] committed = {false};
        long switchStart = System.nanoTime();
        partitions.replace(tp, p, old -> switchOver(tp, old, copy, from, to, committed));
        long switchMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - switchStart);
        m.copy = null;
        m.copyingTo = null;
        if (committed[0]) {
            PartitionMove.removeSource(from.path(), to.path(), tp.topic(), tp.partition());
            LOG.info(
                    "{}: moved from log dir {} to {} in {} ms (appends waited {} ms for the switch)",
                    tp,
                    from.path(),
                    to.path(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                    switchMs);
        }
    }

    /**
     * The switch, with the partition's callers waiting ({@link OpenPartitions#replace}): closed cleanly, the last
     * round, the commit, open in the new dir. Before the commit a failure rolls back and opens it where it was.
     */
    private Partition switchOver(
            TopicPartition tp, Partition old, PartitionCopy copy, LogDir from, LogDir to, boolean[] committed) {
        old.close();
        try {
            copy.round(true);
            Path dir = PartitionMove.commit(from.path(), to.path(), tp.topic(), tp.partition());
            committed[0] = true;
            places.relocate(tp, to);
            return partitions.loadFrom(tp, dir);
        } catch (IOException | RuntimeException e) {
            if (committed[0]) {
                throw e instanceof StorageException se
                        ? se
                        : new StorageException(
                                StorageException.Kind.IO,
                                tp + ": moved to " + to.path() + " but cannot open there: " + e.getMessage(),
                                e);
            }
            LOG.warn("{}: log dir move to {} failed before it committed: {}", tp, to.path(), e.getMessage());
            try {
                PartitionMove.rollBack(to.path(), tp.topic(), tp.partition());
            } catch (IOException cleanup) {
                LOG.warn("{}: the copy in {} stays until the next start: {}", tp, to.path(), cleanup.getMessage());
            }
            return partitions.loadFrom(tp, TopicDir.partition(from.path(), tp.topic(), tp.partition()));
        }
    }

    /** Stops: a move between rounds is dropped (its copy removed at the next start); a switch under way ends first. */
    @Override
    public void close() {
        closed = true;
        mover.shutdown();
        try {
            if (!mover.awaitTermination(30, TimeUnit.SECONDS)) {
                mover.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
