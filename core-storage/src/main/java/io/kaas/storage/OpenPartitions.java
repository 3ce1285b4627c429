package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A disk engine's loaded partitions, and those being loaded: one slot per partition whose future
 * completes when its load ends. One caller loads, outside any map lock; others asking meanwhile wait
 * for it. A refused load is forgotten (and remembered, with why, in {@link #refused}), so the next call
 * tries again; the start-up load does not.
 *
 * <p>Thread-safe: loads run on request threads and {@code kaas-partition-loader} threads, closes on
 * {@code kaas-partition-closer} threads. Which partitions may open is the {@link DirectoryOwnership}'s call.
 */
final class OpenPartitions {
    private static final Logger LOG = LoggerFactory.getLogger(OpenPartitions.class);

    private final EngineConfig config;
    private final EngineObserver observer;
    private final EngineExecutors executors;
    private final FileHandleCache files;
    private final DirectoryOwnership ownership;
    /** The engine's topic by name, or null: the partitions a topic has, its config at load. */
    private final Function<String, TopicInfo> topics;
    /** Where a partition's directory is in the pool ({@link PartitionPlaces#partitionDir}). */
    private final BiFunction<TopicPartition, TopicInfo, Path> partitionDirs;

    private final Map<TopicPartition, CompletableFuture<Partition>> slots = new ConcurrentHashMap<>();
    /** Partitions whose last load was refused (damage), with why: for readiness, and so the start-up load does not retry them. */
    private final Map<TopicPartition, String> refused = new ConcurrentHashMap<>();

    private volatile boolean closed;

    OpenPartitions(
            EngineConfig config,
            EngineObserver observer,
            EngineExecutors executors,
            FileHandleCache files,
            DirectoryOwnership ownership,
            Function<String, TopicInfo> topics,
            BiFunction<TopicPartition, TopicInfo, Path> partitionDirs) {
        this.config = config;
        this.observer = observer;
        this.executors = executors;
        this.files = files;
        this.ownership = ownership;
        this.topics = topics;
        this.partitionDirs = partitionDirs;
    }

    /** {@code tp}, loaded on first use. */
    Partition open(TopicPartition tp) {
        CompletableFuture<Partition> f = slots.get(tp);
        if (f == null) {
            ownership.checkMayOpen(tp);
            TopicInfo info = topics.apply(tp.topic());
            if (info == null || tp.partition() < 0 || tp.partition() >= info.partitions()) {
                throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + tp);
            }
            CompletableFuture<Partition> mine = new CompletableFuture<>();
            f = slots.putIfAbsent(tp, mine);
            if (f == null) {
                f = mine;
                load(tp, info, mine);
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** {@code tp} if it is loaded and served here; never loads. */
    Optional<Partition> ifOpen(TopicPartition tp) {
        CompletableFuture<Partition> f = closed ? null : slots.get(tp);
        if (f == null || !ownership.serves(tp)) {
            return Optional.empty();
        }
        return loaded(f, false);
    }

    /**
     * The start-up load of one partition, unless a caller already tried and was refused: the queued
     * load must not try again behind its back (a refused partition waits for the operator, and each
     * try is a recovery scan).
     */
    void loadAtStartup(TopicPartition tp) {
        if (refused.containsKey(tp)) {
            throw new StorageException(StorageException.Kind.DAMAGED, tp + ": refused earlier");
        }
        open(tp);
    }

    private void load(TopicPartition tp, TopicInfo info, CompletableFuture<Partition> slot) {
        Partition p;
        long start = System.nanoTime();
        try {
            Path dir = partitionDirs.apply(tp, info);
            p = ownership.load(dir, tp, config, info.config(), executors, files, observer);
            observer.partitionOpened(tp, p.openReport(), System.nanoTime() - start);
        } catch (RuntimeException e) {
            if (e instanceof StorageException se) {
                observer.partitionOpenFailed(tp, se);
            }
            refused.put(tp, String.valueOf(e.getMessage()));
            slots.remove(tp, slot);
            slot.completeExceptionally(e);
            return;
        }
        refused.remove(tp);
        // A config change that raced with the load is applied now; a close that raced with it closes what it made.
        TopicInfo now = topics.apply(tp.topic());
        if (now != null) {
            p.updateTopicConfig(now.config());
        }
        slot.complete(p);
        if (closed || slots.get(tp) != slot) {
            p.close();
        }
    }

    /**
     * A log dir move's switch: {@code old}, loaded as {@code tp}, is replaced by what {@code switchOver} makes (it
     * closes {@code old} and opens the partition again, in its new dir or, when the move failed before it
     * committed, in its old one). Callers asking for {@code tp} meanwhile wait for the new one; callers still
     * holding {@code old} are handed to it ({@link Partition#handOverTo}).
     */
    Partition replace(TopicPartition tp, Partition old, Function<Partition, Partition> switchOver) {
        CompletableFuture<Partition> current = slots.get(tp);
        if (closed || current == null || loaded(current, false).orElse(null) != old) {
            throw new StorageException(StorageException.Kind.CLOSED, tp + " was closed or reloaded while moving");
        }
        CompletableFuture<Partition> next = new CompletableFuture<>();
        if (!slots.replace(tp, current, next)) {
            throw new StorageException(StorageException.Kind.CLOSED, tp + " was closed while moving");
        }
        old.handOverTo(next);
        Partition p;
        try {
            p = switchOver.apply(old);
        } catch (RuntimeException e) {
            refused.put(tp, String.valueOf(e.getMessage()));
            slots.remove(tp, next);
            next.completeExceptionally(e);
            throw e;
        }
        next.complete(p);
        if (closed || slots.get(tp) != next) {
            p.close();
        }
        return p;
    }

    /** Loads {@code tp} from {@code dir} for {@link #replace}, with the topic's config now. */
    Partition loadFrom(TopicPartition tp, Path dir) {
        TopicInfo info = topics.apply(tp.topic());
        if (info == null) {
            throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + tp);
        }
        long start = System.nanoTime();
        Partition p = ownership.load(dir, tp, config, info.config(), executors, files, observer);
        observer.partitionOpened(tp, p.openReport(), System.nanoTime() - start);
        return p;
    }

    /** Loads partitions {@code [from, to)} of a new topic (or new partitions) on the loader pool and waits. */
    void loadAll(String topic, int from, int to) {
        List<CompletableFuture<Void>> loads = new ArrayList<>();
        for (int p = from; p < to; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            loads.add(CompletableFuture.runAsync(() -> open(tp), executors.loaders()));
        }
        try {
            CompletableFuture.allOf(loads.toArray(new CompletableFuture[0])).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Puts {@code next} in force on {@code topic}'s loaded partitions. */
    void applyConfig(String topic, TopicConfig next) {
        slots.forEach((tp, p) -> {
            if (tp.topic().equals(topic)) {
                loaded(p, false).ifPresent(part -> part.updateTopicConfig(next));
            }
        });
    }

    /** Forgets {@code tp}, closing it once its load ends: cleanly, or when {@code fenced} without a write. */
    void drop(TopicPartition tp, boolean fenced) {
        CompletableFuture<Partition> f = slots.remove(tp);
        if (f != null) {
            loaded(f, true).ifPresent(p -> {
                if (fenced) {
                    p.abandon();
                } else {
                    p.close();
                }
            });
        }
    }

    /**
     * Forgets every partition {@code which} picks, loaded or being loaded, and returns those loaded: none is
     * served or listed from here on (their log dir went offline; the caller closes them). One being loaded
     * closes what it made when its load ends.
     */
    List<Partition> forget(java.util.function.Predicate<TopicPartition> which) {
        List<Partition> out = new ArrayList<>();
        for (TopicPartition tp : List.copyOf(slots.keySet())) {
            if (which.test(tp)) {
                CompletableFuture<Partition> f = slots.remove(tp);
                if (f != null) {
                    loaded(f, false).ifPresent(out::add);
                }
            }
        }
        return out;
    }

    /** Every partition loaded now (none being loaded is waited for). */
    List<Partition> loaded() {
        List<Partition> out = new ArrayList<>();
        for (CompletableFuture<Partition> f : slots.values()) {
            loaded(f, false).ifPresent(out::add);
        }
        return out;
    }

    /** Partitions refused at their last load, with why. */
    Map<TopicPartition, String> refused() {
        return refused;
    }

    /** The engine is closing: nothing is served from here on, and a load that ends closes what it made. */
    void closing() {
        closed = true;
    }

    /**
     * Closes every partition, several at once on the closers (tens of thousands of partitions each fsync
     * and write state files), after any load in progress ends; with {@code abandon}, without a write.
     * Later loads close what they make.
     */
    void closeAll(boolean abandon) {
        closed = true;
        List<CompletableFuture<Partition>> all = new ArrayList<>(slots.values());
        slots.clear();
        List<Runnable> closes = new ArrayList<>();
        for (CompletableFuture<Partition> f : all) {
            loaded(f, true)
                    .ifPresent(p -> closes.add(() -> {
                        if (abandon) {
                            p.abandon();
                            return;
                        }
                        try {
                            p.close();
                        } catch (RuntimeException e) {
                            LOG.error("{}: close failed: {}", p.id(), e.toString());
                        }
                    }));
        }
        EngineExecutors.runInParallel(closes);
    }

    private static Optional<Partition> loaded(CompletableFuture<Partition> f, boolean wait) {
        if (!wait && !f.isDone()) {
            return Optional.empty();
        }
        try {
            return Optional.of(f.join());
        } catch (CompletionException | CancellationException e) {
            return Optional.empty();
        }
    }
}
