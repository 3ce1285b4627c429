package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * Topics and partitions under one data directory, or a pool of them ({@code log.dirs}, KIP-112: see
 * {@link io.kaas.storage.layout.LogDirs}), laid out as {@link TopicDir} says:
 * {@code <data>/<topic>/{.topic-id.json,.config.json}} and {@code <data>/<topic>/<n>/} per partition. Which dir
 * a partition is in is {@link PartitionPlaces}'s.
 * Directory names that are not legal topic names ({@link TopicName}: {@code __cluster}, names starting
 * with {@code .}) are not topics.
 *
 * <p>The engine holds one OS lock for each whole directory ({@code <data>/.lock}, see {@link OwnerLock}) and
 * one budget of open segment files ({@link FileHandleCache}): a partition costs no file descriptor
 * while idle. Every partition is loaded (recovered if it was not closed cleanly) at start-up on the
 * bounded loader pool; {@link #ready} says when that is done. A partition asked for earlier is loaded
 * by the caller. Topic metadata changes are serialised on this object's monitor; appends and reads
 * never take it.
 *
 * <p>Its parts: {@link DiskTopics} (topics in memory and on disk), {@link OpenPartitions} (the
 * loaded partitions and their loads), {@link StartupLoad}, {@link LogCleanerThreads}, {@link EngineLogDirs}
 * (the dirs' locks, offline dirs, moves between dirs), and one
 * {@link DirectoryOwnership}: {@link ExclusiveDirectory} (this process owns the directory) or
 * {@link SharedDirectory} (several brokers share it, see {@link #shared}), the one place the two differ.
 */
public final class DiskStorageEngine implements StorageEngine {
    private final EngineConfig config;
    private final EngineObserver observer;
    private final EngineExecutors executors;
    private final FileHandleCache files;
    /** Exclusive or shared: the one place the two differ. */
    private final DirectoryOwnership ownership;

    private final PartitionPlaces places;
    /** The dirs' locks, which are offline, and moves between them. */
    private final EngineLogDirs dirs;

    private final OpenPartitions partitions;
    private final DiskTopics topics;
    private final StartupLoad startup;
    private final LogCleanerThreads cleaner;
    private volatile boolean closed;
    private volatile boolean fencedAtClose;

    public DiskStorageEngine(EngineConfig config) {
        this(config, EngineObserver.NONE);
    }

    /** An engine that reports fsyncs, partition opens and failures to {@code observer}. */
    public DiskStorageEngine(EngineConfig config, EngineObserver observer) {
        this(config, observer, new ExclusiveDirectory());
    }

    /**
     * An engine over a directory that several brokers share, each owning the partitions its
     * coordination store assigns it. It takes no OS lock ({@code <data>/.lock}: NFS does not carry OS locks
     * reliably; ownership is the store's lease) and loads nothing at start: a partition opens only once
     * taken over ({@link #takeOver}), and any call for another fails with
     * {@link StorageException.Kind#NOT_OWNED} without touching its files.
     */
    public static DiskStorageEngine shared(EngineConfig config, EngineObserver observer) {
        return new DiskStorageEngine(config, observer, new SharedDirectory());
    }

    private DiskStorageEngine(EngineConfig config, EngineObserver observer, DirectoryOwnership ownership) {
        this.ownership = ownership;
        this.config = config;
        this.executors = new EngineExecutors(config.fsyncTimeout());
        this.files = new FileHandleCache(config.maxOpenFiles());
        if (!config.logDirs().isSingle() && !ownership.loadsEveryPartition()) {
            executors.close();
            throw new IllegalArgumentException("several brokers sharing a directory serve one log dir, not "
                    + config.logDirs().dirs().size());
        }
        try {
            this.dirs = new EngineLogDirs(config, ownership, observer, this::logDirOf, this::forgetPartitionsIn);
        } catch (RuntimeException e) {
            executors.close();
            throw e;
        }
        this.observer = dirs.failures();
        LogDirFailures failures = dirs.failures();
        this.places = new PartitionPlaces(config.logDirs(), config.placement(), this::loadedSize, failures);
        this.partitions = new OpenPartitions(
                config, this.observer, executors, files, ownership, this::topicNamed, places::partitionDir);
        this.topics = new DiskTopics(config.dataDir(), ownership, partitions, places);
        try {
            places.load();
            topics.load();
        } catch (IOException | RuntimeException e) {
            dirs.releaseLocks();
            executors.close();
            throw e instanceof IOException io
                    ? new StorageException(
                            StorageException.Kind.IO,
                            config.dataDir() + ": cannot open data directory: " + io.getMessage(),
                            io)
                    : (RuntimeException) e;
        }
        List<TopicPartition> all = new ArrayList<>();
        for (TopicInfo t : ownership.loadsEveryPartition() ? topics.all() : List.<TopicInfo>of()) {
            for (int p = 0; p < t.partitions(); p++) {
                all.add(new TopicPartition(t.name(), p));
            }
        }
        this.startup = StartupLoad.start(all, partitions::loadAtStartup, executors.loaders());
        this.cleaner = new LogCleanerThreads(config.cleaner(), partitions::loaded, config.clock());
        cleaner.start();
        dirs.startMoves(partitions, places, this::topicNamed);
    }

    /** For {@link LogDirFailures}: {@code d} went offline. */
    private List<Partition> forgetPartitionsIn(LogDir d) {
        return partitions.forget(tp -> places.dirOf(tp).filter(d::equals).isPresent());
    }

    /**
     * One cleaning round on the caller's thread, as a {@code kaas-log-cleaner} thread runs it: a pass on
     * every compacted partition that is due. Returns how many partitions were cleaned.
     */
    public int runCleaner() {
        return cleaner.runOnce();
    }

    @Override
    public synchronized void markTopicDeleted(String name) {
        ensureOpen();
        topics.markDeleted(name);
    }

    @Override
    public Map<String, Integer> topicsBeingDeleted() {
        return topics.beingDeleted();
    }

    @Override
    public synchronized void removeDeletedTopic(String name) {
        ensureOpen();
        topics.removeDeleted(name);
    }

    @Override
    public TopicInfo createTopic(String name, int partitions, TopicConfig topicConfig) {
        TopicInfo info = createTopicFiles(name, partitions, topicConfig);
        if (ownership.loadsEveryPartition()) {
            this.partitions.loadAll(name, 0, partitions);
        }
        return info;
    }

    /**
     * Each topic on a {@code kaas-topic-creator} thread, its partitions loaded one after the other on that
     * thread: {@link EngineExecutors#CREATOR_THREADS} chains of fsyncs at once instead of one.
     */
    @Override
    public List<CompletableFuture<TopicInfo>> createTopics(List<TopicToCreate> wanted) {
        List<CompletableFuture<TopicInfo>> out = new ArrayList<>(wanted.size());
        for (TopicToCreate t : wanted) {
            try {
                out.add(CompletableFuture.supplyAsync(
                        () -> {
                            TopicInfo info = createTopicFiles(t.name(), t.partitions(), t.config());
                            if (ownership.loadsEveryPartition()) {
                                for (int p = 0; p < info.partitions(); p++) {
                                    this.partitions.open(new TopicPartition(info.name(), p));
                                }
                            }
                            return info;
                        },
                        executors.creators()));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                out.add(CompletableFuture.failedFuture(
                        new StorageException(StorageException.Kind.CLOSED, "the storage engine is closed")));
            }
        }
        return out;
    }

    /** The topic's files, written outside the monitor (it is held only to reserve the name and to publish). */
    private TopicInfo createTopicFiles(String name, int partitions, TopicConfig topicConfig) {
        DiskTopics.Reservation r;
        synchronized (this) {
            ensureOpen();
            r = topics.reserve(name, partitions, topicConfig);
        }
        topics.writeFiles(r);
        synchronized (this) {
            if (closed) {
                topics.giveUp(r);
                ensureOpen();
            }
            return topics.publish(r);
        }
    }

    @Override
    public synchronized void deleteTopic(String name) {
        ensureOpen();
        topics.delete(name);
    }

    @Override
    public TopicInfo createPartitions(String name, int totalPartitions) {
        int before = topic(name).map(TopicInfo::partitions).orElse(0);
        TopicInfo grown;
        synchronized (this) {
            ensureOpen();
            grown = topics.addPartitions(name, totalPartitions);
        }
        if (ownership.loadsEveryPartition()) {
            partitions.loadAll(name, before, grown.partitions());
        }
        return grown;
    }

    @Override
    public synchronized TopicInfo alterTopicConfig(String name, UnaryOperator<TopicConfig> change) {
        ensureOpen();
        return topics.alterConfig(name, change);
    }

    /** A loaded partition's bytes, for placement by bytes; 0 when it is not loaded. */
    private long loadedSize(TopicPartition tp) {
        return partitions.ifOpen(tp).map(p -> p.state().sizeInBytes()).orElse(0L);
    }

    @Override
    public List<LogDir> logDirs() {
        return config.logDirs().dirs();
    }

    @Override
    public Optional<LogDir> logDirOf(TopicPartition tp) {
        return places.dirOf(tp);
    }

    @Override
    public CompletableFuture<Void> moveToLogDir(TopicPartition tp, LogDir to) {
        ensureOpen();
        return dirs.move(tp, to, this::openPartition);
    }

    @Override
    public Optional<FutureReplica> futureReplica(TopicPartition tp) {
        return dirs.future(tp);
    }

    @Override
    public Map<LogDir, String> offlineLogDirs() {
        return dirs.offlineDirs();
    }

    @Override
    public CompletableFuture<StorageException> homeDirFailed() {
        return dirs.homeFailed();
    }

    /** For {@link OpenPartitions}, which is made before {@link #topics}. */
    private TopicInfo topicNamed(String name) {
        return topics.get(name);
    }

    @Override
    public Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    @Override
    public Collection<TopicInfo> topics() {
        return topics.all();
    }

    @Override
    public PartitionLog partition(TopicPartition tp) {
        return openPartition(tp);
    }

    @Override
    public Optional<PartitionLog> partitionIfOpen(TopicPartition tp) {
        return closed ? Optional.empty() : partitions.ifOpen(tp).map(p -> p);
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
     * The concrete partition, loaded on first use (tests and benchmarks read its fsync count); see
     * {@link OpenPartitions#open}.
     */
    public Partition openPartition(TopicPartition tp) {
        ensureOpen();
        dirs.failures().checkOnline(tp);
        return partitions.open(tp);
    }

    @Override
    public void takeOver(TopicPartition tp, int epoch) {
        ensureOpen();
        TopicInfo known = topics.get(tp.topic());
        if (known == null || known.partitions() <= tp.partition()) {
            refreshTopics();
        }
        release(tp);
        ownership.taking(tp, epoch);
        try {
            openPartition(tp);
        } catch (RuntimeException e) {
            ownership.takeOverFailed(tp, epoch);
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
        ownership.released(tp);
        partitions.drop(tp, fenced);
    }

    @Override
    public Map<TopicPartition, Integer> taken() {
        return ownership.taken();
    }

    @Override
    public synchronized void refreshTopics() {
        ensureOpen();
        try {
            topics.load();
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
        partitions.refused().forEach((tp, why) -> {
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
        return List.copyOf(partitions.loaded());
    }

    @Override
    public int runRetention(long nowMs) {
        int removed = 0;
        for (Partition p : partitions.loaded()) {
            removed += p.runRetention(nowMs);
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
     * Shared: the next {@link #close} gives every partition up without writing to its files
     * ({@link Partition#abandon}): this broker was fenced, and another may own them already.
     */
    public void closeFenced() {
        fencedAtClose = true;
        close();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        partitions.closing();
        // No load may finish after the partitions are closed, and no cleaning pass run on a closed one.
        executors.stopLoaders();
        dirs.stopMoves();
        cleaner.close();
        dirs.awaitOfflineClosed();
        partitions.closeAll(ownership.abandonsAtClose(fencedAtClose));
        executors.close();
        dirs.releaseLocks();
    }
}
