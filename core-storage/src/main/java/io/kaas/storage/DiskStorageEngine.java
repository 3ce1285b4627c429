package io.kaas.storage;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topics and partitions under one data directory, laid out as {@link TopicDir} says:
 * {@code <data>/<topic>/{.topic-id.json,.config.json}} and {@code <data>/<topic>/<n>/} per partition.
 * Directory names that are not legal topic names ({@link TopicName}: {@code __cluster}, names starting
 * with {@code .}) are not topics.
 *
 * <p>Partitions are opened (recovered, locked) on first use. Topic metadata changes are serialised on
 * this object's monitor; appends and reads never take it.
 */
public final class DiskStorageEngine implements StorageEngine {
    private static final Logger LOG = LoggerFactory.getLogger(DiskStorageEngine.class);

    private final EngineConfig config;
    private final EngineObserver observer;
    private final EngineExecutors executors = new EngineExecutors();
    private final Map<String, TopicInfo> topics = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Partition> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public DiskStorageEngine(EngineConfig config) {
        this(config, EngineObserver.NONE);
    }

    /** An engine that reports fsyncs, partition opens and failures to {@code observer}. */
    public DiskStorageEngine(EngineConfig config, EngineObserver observer) {
        this.config = config;
        this.observer = observer;
        try {
            AtomicFile.createDirectories(config.dataDir());
            loadTopics();
        } catch (IOException e) {
            executors.close();
            throw new StorageException(StorageException.Kind.IO, config.dataDir() + ": cannot open data directory: " + e.getMessage(), e);
        }
    }

    private void loadTopics() throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(config.dataDir(), Files::isDirectory)) {
            for (Path d : ds) {
                String name = d.getFileName().toString();
                if (TopicDir.isDeleting(name)) {
                    // A delete that a crash interrupted: finish it.
                    deleteRecursively(d);
                    continue;
                }
                if (!TopicDir.isTopic(name)) {
                    continue;
                }
                UUID id = StateJson.read(d.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class).map(TopicIdentity::topicId).orElse(null);
                if (id == null) {
                    id = UUID.randomUUID();
                    StateJson.write(d.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(id));
                }
                TopicConfig cfg = StateJson.read(d.resolve(TopicConfig.FILE_NAME), TopicConfig.class).orElse(TopicConfig.EMPTY);
                topics.put(name, new TopicInfo(name, id, countPartitions(d), cfg));
            }
        }
    }

    private static int countPartitions(Path topicDir) throws IOException {
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(topicDir, Files::isDirectory)) {
            for (Path p : ds) {
                OptionalInt index = TopicDir.partitionIndex(p.getFileName().toString());
                if (index.isPresent()) {
                    n = Math.max(n, index.getAsInt() + 1);
                }
            }
        }
        return n;
    }

    @Override
    public synchronized TopicInfo createTopic(String name, int partitions, TopicConfig topicConfig) {
        ensureOpen();
        TopicName.requireLegal(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, got " + partitions);
        }
        if (topics.containsKey(name)) {
            throw new StorageException(StorageException.Kind.TOPIC_EXISTS, "topic " + name + " already exists");
        }
        Path dir = TopicDir.of(config.dataDir(), name);
        try {
            AtomicFile.createDirectories(dir);
            TopicInfo info = new TopicInfo(name, UUID.randomUUID(), partitions, topicConfig);
            StateJson.write(dir.resolve(TopicConfig.FILE_NAME), topicConfig);
            StateJson.write(dir.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(info.topicId()));
            for (int p = 0; p < partitions; p++) {
                Files.createDirectory(TopicDir.partition(dir, p));
            }
            AtomicFile.fsyncDirectory(dir);
            topics.put(name, info);
            for (int p = 0; p < partitions; p++) {
                partition(new TopicPartition(name, p));
            }
            return info;
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create topic: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void deleteTopic(String name) {
        ensureOpen();
        TopicInfo info = topics.remove(name);
        if (info == null) {
            throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        for (int p = 0; p < info.partitions(); p++) {
            Partition part = open.remove(new TopicPartition(name, p));
            if (part != null) {
                part.close();
            }
        }
        Path dir = TopicDir.of(config.dataDir(), name);
        // Rename first (one atomic, durable step), then delete at leisure: a crash never leaves half a topic.
        Path doomed = TopicDir.deleting(config.dataDir(), name, info.topicId());
        try {
            Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
            AtomicFile.fsyncDirectory(config.dataDir());
            deleteRecursively(doomed);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot delete topic: " + e.getMessage(), e);
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    @Override
    public synchronized TopicInfo createPartitions(String name, int totalPartitions) {
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
        for (int p = info.partitions(); p < totalPartitions; p++) {
            partition(new TopicPartition(name, p));
        }
        return grown;
    }

    @Override
    public synchronized TopicInfo updateTopicConfig(String name, TopicConfig topicConfig) {
        ensureOpen();
        TopicInfo info = topicOrThrow(name);
        StateJson.write(TopicDir.of(config.dataDir(), name).resolve(TopicConfig.FILE_NAME), topicConfig);
        TopicInfo updated = new TopicInfo(name, info.topicId(), info.partitions(), topicConfig);
        topics.put(name, updated);
        open.forEach((tp, p) -> {
            if (tp.topic().equals(name)) {
                p.updateTopicConfig(topicConfig);
            }
        });
        return updated;
    }

    private TopicInfo topicOrThrow(String name) {
        TopicInfo info = topics.get(name);
        if (info == null) {
            throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
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

    /** The concrete partition (tests and benchmarks read its fsync count). */
    public Partition openPartition(TopicPartition tp) {
        ensureOpen();
        Partition p = open.get(tp);
        if (p != null) {
            return p;
        }
        TopicInfo info = topics.get(tp.topic());
        if (info == null || tp.partition() < 0 || tp.partition() >= info.partitions()) {
            throw new StorageException(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + tp);
        }
        return open.computeIfAbsent(tp, k -> load(tp, info));
    }

    private Partition load(TopicPartition tp, TopicInfo info) {
        long start = System.nanoTime();
        try {
            Partition p = Partition.open(TopicDir.partition(config.dataDir(), tp.topic(), tp.partition()),
                    tp, config, info.config(), executors, observer);
            observer.partitionOpened(tp, p.openReport(), System.nanoTime() - start);
            return p;
        } catch (StorageException e) {
            observer.partitionOpenFailed(tp, e);
            throw e;
        }
    }

    @Override
    public Collection<PartitionLog> openPartitions() {
        return List.copyOf(open.values());
    }

    @Override
    public int runRetention(long nowMs) {
        int removed = 0;
        for (Partition p : open.values()) {
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

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Partition> all = new ArrayList<>(open.values());
        open.clear();
        for (Partition p : all) {
            try {
                p.close();
            } catch (RuntimeException e) {
                LOG.error("{}: close failed: {}", p.id(), e.toString());
            }
        }
        executors.close();
    }
}
