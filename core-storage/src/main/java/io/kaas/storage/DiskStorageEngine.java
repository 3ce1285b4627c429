package io.kaas.storage;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topics and partitions under one data directory, laid out as {@link TopicDir} says:
 * {@code <data>/<topic>/{.topic-id.json,.config.json}} and {@code <data>/<topic>/<n>/} per partition.
 * Directory names that are not legal topic names ({@link TopicName}: {@code __cluster}, names starting
 * with {@code .}) are not topics.
 *
 * <p>The engine holds one OS lock for the whole directory ({@code <data>/.lock}, see {@link OwnerLock}) and
 * one budget of open segment files ({@link FileHandleCache}): a partition costs no file descriptor
 * while idle. Every partition is loaded (recovered if it was not closed cleanly) at start-up on the
 * bounded loader pool; {@link #ready} says when that is done. A partition asked for earlier is loaded
 * by the caller. Topic metadata changes are serialised on this object's monitor; appends and reads
 * never take it.
 */
public final class DiskStorageEngine implements StorageEngine {
    private static final Logger LOG = LoggerFactory.getLogger(DiskStorageEngine.class);

    private final EngineConfig config;
    private final EngineObserver observer;
    private final EngineExecutors executors;
    private final FileHandleCache files;
    private final OwnerLock owner;
    private final Map<String, TopicInfo> topics = new ConcurrentHashMap<>();
    /** Loaded partitions, and those being loaded (the future completes when the load ends). */
    private final Map<TopicPartition, CompletableFuture<Partition>> open = new ConcurrentHashMap<>();

    private final StartupLoad startup;
    /** Partitions whose load failed once: the start-up load leaves them to callers (see {@link #loadAtStartup}). */
    /** Partitions whose last load was refused (damage), with why: for readiness, and so the start-up load does not retry them. */
    private final Map<TopicPartition, String> refused = new ConcurrentHashMap<>();

    private final LogCleanerThreads cleaner;
    private volatile boolean closed;
    /** Several brokers over this directory: no directory lock, no start-up load, only partitions taken over open. */
    private final boolean shared;
    /** With {@link #shared}: the partitions taken over here and the epoch each was taken in. */
    private final Map<TopicPartition, Integer> taken = new ConcurrentHashMap<>();
    /** With {@link #shared}: topic configs other brokers may change, see {@link SharedTopicConfigs}. */
    private final SharedTopicConfigs sharedConfigs = new SharedTopicConfigs();

    public DiskStorageEngine(EngineConfig config) {
        this(config, EngineObserver.NONE);
    }

    /** An engine that reports fsyncs, partition opens and failures to {@code observer}. */
    public DiskStorageEngine(EngineConfig config, EngineObserver observer) {
        this(config, observer, false);
    }

    /**
     * An engine over a directory that several brokers share, each owning the partitions its
     * coordination store assigns it. It takes no OS lock ({@code <data>/.lock}: NFS does not carry OS locks
     * reliably; ownership is the store's lease) and loads nothing at start: a partition opens only once
     * taken over ({@link #takeOver}), and any call for another fails with
     * {@link StorageException.Kind#NOT_OWNED} without touching its files.
     */
    public static DiskStorageEngine shared(EngineConfig config, EngineObserver observer) {
        return new DiskStorageEngine(config, observer, true);
    }

    private DiskStorageEngine(EngineConfig config, EngineObserver observer, boolean shared) {
        this.shared = shared;
        this.config = config;
        this.executors = new EngineExecutors(config.fsyncTimeout());
        this.files = new FileHandleCache(config.maxOpenFiles());
        this.observer = observer;
        try {
            AtomicFile.createDirectories(config.dataDir());
        } catch (IOException e) {
            executors.close();
            throw new StorageException(
                    StorageException.Kind.IO, config.dataDir() + ": cannot open data directory: " + e.getMessage(), e);
        }
        try {
            this.owner = shared ? OwnerLock.none() : OwnerLock.acquireDataDir(config.dataDir());
        } catch (RuntimeException e) {
            executors.close();
            throw e;
        }
        try {
            loadTopics();
        } catch (IOException | RuntimeException e) {
            owner.close();
            executors.close();
            throw e instanceof IOException io
                    ? new StorageException(
                            StorageException.Kind.IO,
                            config.dataDir() + ": cannot open data directory: " + io.getMessage(),
                            io)
                    : (RuntimeException) e;
        }
        List<TopicPartition> all = new ArrayList<>();
        for (TopicInfo t : shared ? List.<TopicInfo>of() : topics.values()) {
            for (int p = 0; p < t.partitions(); p++) {
                all.add(new TopicPartition(t.name(), p));
            }
        }
        this.startup = StartupLoad.start(all, this::loadAtStartup, executors.loaders());
        this.cleaner = new LogCleanerThreads(config.cleaner(), this::loadedPartitions, config.clock());
        cleaner.start();
    }

    private List<Partition> loadedPartitions() {
        List<Partition> out = new ArrayList<>();
        for (CompletableFuture<Partition> f : open.values()) {
            loaded(f, false).ifPresent(out::add);
        }
        return out;
    }

    /**
     * One cleaning round on the caller's thread, as a {@code kaas-log-cleaner} thread runs it: a pass on
     * every compacted partition that is due. Returns how many partitions were cleaned.
     */
    public int runCleaner() {
        return cleaner.runOnce();
    }

    private void loadTopics() throws IOException {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Path d : TopicFiles.list(config.dataDir(), shared)) {
            String name = d.getFileName().toString();
            seen.add(name);
            TopicInfo known = topics.get(name);
            if (known == null) {
                TopicFiles.read(d, shared).ifPresent(info -> topics.put(name, info));
                if (shared) {
                    sharedConfigs.remember(d);
                }
            } else if (shared) {
                // Another broker added partitions: a known topic only grows.
                int n = TopicDir.partitionCount(d);
                if (n > known.partitions()) {
                    known = new TopicInfo(name, known.topicId(), n, known.config());
                    topics.put(name, known);
                }
                // Another broker altered its config: in force here too.
                TopicInfo before = known;
                sharedConfigs
                        .changedSinceRead(d)
                        .filter(c -> !c.equals(before.config()))
                        .ifPresent(c -> applyConfig(before, c));
            }
        }
        if (shared) {
            for (String known : List.copyOf(topics.keySet())) {
                if (!seen.contains(known)) {
                    forget(known);
                }
            }
        }
    }

    /** Shared: {@code name} is another broker's to delete: drop it, closing (cleanly) what this engine held of it. */
    private void forget(String name) {
        sharedConfigs.forget(name);
        TopicInfo info = topics.remove(name);
        if (info != null) {
            LOG.info("topic {} is being deleted: closing its partitions here", name);
            for (int p = 0; p < info.partitions(); p++) {
                drop(new TopicPartition(name, p), false);
            }
        }
    }

    @Override
    public synchronized void markTopicDeleted(String name) {
        ensureOpen();
        if (!shared) {
            throw new UnsupportedOperationException(config.dataDir() + ": this engine does not share its directory");
        }
        if (!topics.containsKey(name)) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        Path dir = TopicDir.of(config.dataDir(), name);
        try {
            TopicFiles.markDeleted(dir);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot mark the topic deleted: " + e.getMessage(), e);
        }
        forget(name);
    }

    @Override
    public Map<String, Integer> topicsBeingDeleted() {
        try {
            return TopicDir.markedDeleted(config.dataDir());
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, config.dataDir() + ": cannot list topics: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void removeDeletedTopic(String name) {
        ensureOpen();
        try {
            TopicDir.removeMarkedDeleted(config.dataDir(), name);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    TopicDir.of(config.dataDir(), name) + ": cannot delete topic: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public TopicInfo createTopic(String name, int partitions, TopicConfig topicConfig) {
        TopicInfo info = createTopicFiles(name, partitions, topicConfig);
        if (!shared) {
            loadAll(name, 0, partitions);
        }
        return info;
    }

    private synchronized TopicInfo createTopicFiles(String name, int partitions, TopicConfig topicConfig) {
        ensureOpen();
        TopicName.requireLegal(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, got " + partitions);
        }
        if (topics.containsKey(name)) {
            throw new StorageException(StorageException.Kind.TOPIC_EXISTS, "topic " + name + " already exists");
        }
        Path dir = TopicDir.of(config.dataDir(), name);
        TopicInfo info = new TopicInfo(name, UUID.randomUUID(), partitions, topicConfig);
        try {
            TopicFiles.create(config.dataDir(), info, shared);
            topics.put(name, info);
            if (shared) {
                sharedConfigs.remember(dir);
            }
            return info;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            if (shared && dir.toString().equals(e.getFile())) {
                // Another broker sharing the directory created it first: one of two creators wins the mkdir.
                throw new StorageException(
                        StorageException.Kind.TOPIC_EXISTS,
                        "topic " + name + " already exists (created by another broker)");
            }
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create topic: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create topic: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void deleteTopic(String name) {
        ensureOpen();
        TopicInfo info = topics.remove(name);
        if (info == null) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        for (int p = 0; p < info.partitions(); p++) {
            CompletableFuture<Partition> part = open.remove(new TopicPartition(name, p));
            if (part != null) {
                loaded(part, true).ifPresent(Partition::close);
            }
        }
        try {
            TopicFiles.delete(config.dataDir(), info);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    TopicDir.of(config.dataDir(), name) + ": cannot delete topic: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public TopicInfo createPartitions(String name, int totalPartitions) {
        int before = topic(name).map(TopicInfo::partitions).orElse(0);
        TopicInfo grown = createPartitionFiles(name, totalPartitions);
        if (!shared) {
            loadAll(name, before, grown.partitions());
        }
        return grown;
    }

    private synchronized TopicInfo createPartitionFiles(String name, int totalPartitions) {
        ensureOpen();
        TopicInfo info = topicOrThrow(name);
        if (totalPartitions <= info.partitions()) {
            throw new IllegalArgumentException("topic " + name + " has " + info.partitions()
                    + " partitions; the new count must be larger, got " + totalPartitions);
        }
        Path dir = TopicDir.of(config.dataDir(), name);
        try {
            for (int p = info.partitions(); p < totalPartitions; p++) {
                Files.createDirectories(TopicDir.partition(dir, p));
            }
            AtomicFile.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot add partitions: " + e.getMessage(), e);
        }
        TopicInfo grown = new TopicInfo(name, info.topicId(), totalPartitions, info.config());
        topics.put(name, grown);
        return grown;
    }

    @Override
    public synchronized TopicInfo alterTopicConfig(String name, UnaryOperator<TopicConfig> change) {
        ensureOpen();
        TopicInfo info = topicOrThrow(name);
        Path dir = TopicDir.of(config.dataDir(), name);
        TopicConfig next;
        if (shared) {
            next = sharedConfigs.alter(dir, info.config(), change); // from the file: another broker may have changed it
        } else {
            next = change.apply(info.config());
            StateJson.write(dir.resolve(TopicConfig.FILE_NAME), next);
        }
        return applyConfig(info, next);
    }

    /** Puts {@code next} in force for the topic and its open partitions. */
    private TopicInfo applyConfig(TopicInfo info, TopicConfig next) {
        TopicInfo updated = new TopicInfo(info.name(), info.topicId(), info.partitions(), next);
        topics.put(info.name(), updated);
        open.forEach((tp, p) -> {
            if (tp.topic().equals(info.name())) {
                loaded(p, false).ifPresent(part -> part.updateTopicConfig(next));
            }
        });
        return updated;
    }

    private TopicInfo topicOrThrow(String name) {
        TopicInfo info = topics.get(name);
        if (info == null) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        return info;
    }

    @Override
    public Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    @Override
    public Collection<TopicInfo> topics() {
        return List.copyOf(topics.values());
    }

    @Override
    public PartitionLog partition(TopicPartition tp) {
        return openPartition(tp);
    }

    @Override
    public Optional<PartitionLog> partitionIfOpen(TopicPartition tp) {
        CompletableFuture<Partition> f = closed ? null : open.get(tp);
        if (f == null || (shared && !taken.containsKey(tp))) {
            return Optional.empty();
        }
        return loaded(f, false).map(p -> p);
    }

    @Override
    public java.util.concurrent.Executor fsyncingAfterTasks(java.util.concurrent.Executor pool) {
        return executors.runningLastDrainOnTaskThread(pool);
    }

    /** The engine's threads (tests look at the committer pool). */
    EngineExecutors executors() {
        return executors;
    }

    /**
     * The concrete partition, loaded on first use (tests and benchmarks read its fsync count). One
     * caller loads, outside any map lock; others asking meanwhile wait for it. A refused load is
     * forgotten, so the next call tries again.
     */
    public Partition openPartition(TopicPartition tp) {
        ensureOpen();
        CompletableFuture<Partition> f = open.get(tp);
        if (f == null && shared && !taken.containsKey(tp)) {
            throw new StorageException(StorageException.Kind.NOT_OWNED, tp + " is not owned by this broker");
        }
        if (f == null) {
            TopicInfo info = topics.get(tp.topic());
            if (info == null || tp.partition() < 0 || tp.partition() >= info.partitions()) {
                throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + tp);
            }
            CompletableFuture<Partition> mine = new CompletableFuture<>();
            f = open.putIfAbsent(tp, mine);
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

    /**
     * The start-up load of one partition, unless a caller already tried and was refused: the queued
     * load must not try again behind its back (a refused partition waits for the operator, and each
     * try is a recovery scan).
     */
    private void loadAtStartup(TopicPartition tp) {
        if (refused.containsKey(tp)) {
            throw new StorageException(StorageException.Kind.DAMAGED, tp + ": refused earlier");
        }
        openPartition(tp);
    }

    private void load(TopicPartition tp, TopicInfo info, CompletableFuture<Partition> slot) {
        Partition p;
        long start = System.nanoTime();
        try {
            Path dir = TopicDir.partition(config.dataDir(), tp.topic(), tp.partition());
            Integer epoch = taken.get(tp);
            p = shared && epoch != null
                    ? PartitionLoader.takeOver(dir, tp, config, info.config(), executors, files, observer, epoch)
                    : PartitionLoader.load(dir, tp, config, info.config(), executors, files, observer);
            observer.partitionOpened(tp, p.openReport(), System.nanoTime() - start);
        } catch (RuntimeException e) {
            if (e instanceof StorageException se) {
                observer.partitionOpenFailed(tp, se);
            }
            refused.put(tp, String.valueOf(e.getMessage()));
            open.remove(tp, slot);
            slot.completeExceptionally(e);
            return;
        }
        refused.remove(tp);
        // A config change that raced with the load is applied now; a close that raced with it closes what it made.
        TopicInfo now = topics.get(tp.topic());
        if (now != null) {
            p.updateTopicConfig(now.config());
        }
        slot.complete(p);
        if (closed || open.get(tp) != slot) {
            p.close();
        }
    }

    /** Loads partitions {@code [from, to)} of a new topic (or new partitions) on the loader pool and waits. */
    private void loadAll(String topic, int from, int to) {
        List<CompletableFuture<Void>> loads = new ArrayList<>();
        for (int p = from; p < to; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            loads.add(CompletableFuture.runAsync(() -> openPartition(tp), executors.loaders()));
        }
        try {
            CompletableFuture.allOf(loads.toArray(new CompletableFuture[0])).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private static Optional<Partition> loaded(CompletableFuture<Partition> f, boolean wait) {
        if (!wait && !f.isDone()) {
            return Optional.empty();
        }
        try {
            return Optional.of(f.join());
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return Optional.empty();
        }
    }

    @Override
    public void takeOver(TopicPartition tp, int epoch) {
        if (!shared) {
            throw new UnsupportedOperationException(config.dataDir() + ": this engine does not share its directory");
        }
        ensureOpen();
        if (!topics.containsKey(tp.topic()) || topics.get(tp.topic()).partitions() <= tp.partition()) {
            refreshTopics();
        }
        release(tp);
        taken.put(tp, epoch);
        try {
            openPartition(tp);
        } catch (RuntimeException e) {
            taken.remove(tp, epoch);
            throw e;
        }
    }

    @Override
    public void release(TopicPartition tp) {
        drop(tp, false);
    }

    @Override
    public void abandon(TopicPartition tp) {
        drop(tp, true);
    }

    private void drop(TopicPartition tp, boolean fenced) {
        taken.remove(tp);
        CompletableFuture<Partition> f = open.remove(tp);
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

    @Override
    public Map<TopicPartition, Integer> taken() {
        return Map.copyOf(taken);
    }

    @Override
    public synchronized void refreshTopics() {
        ensureOpen();
        try {
            loadTopics();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, config.dataDir() + ": cannot list topics: " + e.getMessage(), e);
        }
    }

    @Override
    public PartitionState partitionState(TopicPartition tp) {
        return openPartition(tp).state();
    }

    @Override
    public boolean ready() {
        return startup.ready();
    }

    @Override
    public LoadProgress loadProgress() {
        return startup.progress();
    }

    @Override
    public Map<TopicPartition, String> refusedPartitions() {
        Map<TopicPartition, String> out =
                new TreeMap<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        refused.forEach((tp, why) -> {
            TopicInfo info = topics.get(tp.topic());
            if (info != null && tp.partition() < info.partitions()) { // a deleted topic's refusal is moot
                out.put(tp, why);
            }
        });
        return out;
    }

    /** Completes when {@link #ready} turns true. */
    public CompletableFuture<Void> whenReady() {
        return startup.whenReady();
    }

    /** The engine's file-handle budget (tests and metrics read its counts). */
    public FileHandleCache files() {
        return files;
    }

    @Override
    public Collection<PartitionLog> openPartitions() {
        List<PartitionLog> out = new ArrayList<>();
        for (CompletableFuture<Partition> f : open.values()) {
            loaded(f, false).ifPresent(out::add);
        }
        return out;
    }

    @Override
    public int runRetention(long nowMs) {
        int removed = 0;
        for (CompletableFuture<Partition> f : open.values()) {
            Optional<Partition> p = loaded(f, false);
            if (p.isPresent()) {
                removed += p.get().runRetention(nowMs);
            }
        }
        return removed;
    }

    @Override
    public Path dataDir() {
        return config.dataDir();
    }

    public EngineConfig config() {
        return config;
    }

    private void ensureOpen() {
        if (closed) {
            throw new StorageException(StorageException.Kind.CLOSED, "the storage engine is closed");
        }
    }

    /**
     * With {@link #shared}: the next {@link #close} gives every partition up without writing to its files
     * ({@link Partition#abandon}): this broker was fenced, and another may own them already.
     */
    public void closeFenced() {
        fencedAtClose = true;
        close();
    }

    private volatile boolean fencedAtClose;

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // No load may finish after the partitions are closed, and no cleaning pass run on a closed one.
        executors.stopLoaders();
        cleaner.close();
        List<CompletableFuture<Partition>> all = new ArrayList<>(open.values());
        open.clear();
        // Tens of thousands of partitions each fsync and write state files: several at once, as at load.
        List<Runnable> closes = new ArrayList<>();
        for (CompletableFuture<Partition> f : all) {
            loaded(f, true)
                    .ifPresent(p -> closes.add(() -> {
                        if (shared && fencedAtClose) {
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
        executors.close();
        owner.close();
    }
}
