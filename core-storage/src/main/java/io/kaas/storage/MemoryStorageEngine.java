package io.kaas.storage;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.format.TopicConfig;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Dev mode: the disk engine on an in-memory filesystem (jimfs). One engine means one set of rules —
 * offsets, idempotence, retention, recovery — with nothing surviving the process. fsync is a no-op
 * there, so acks=all costs nothing.
 */
public final class MemoryStorageEngine implements StorageEngine {
    private final FileSystem fs;
    private final DiskStorageEngine engine;

    public MemoryStorageEngine() {
        this(EngineConfig.defaults(Path.of("/")));
    }

    /** Uses {@code template}'s settings; its data dir is replaced by an in-memory one. */
    public MemoryStorageEngine(EngineConfig template) {
        this(template, EngineObserver.NONE);
    }

    /** Uses {@code template}'s settings and reports to {@code observer}, as {@link DiskStorageEngine} does. */
    public MemoryStorageEngine(EngineConfig template, EngineObserver observer) {
        this.fs = Jimfs.newFileSystem("kaas-memory", Configuration.unix());
        EngineConfig c = template;
        this.engine = new DiskStorageEngine(
                new EngineConfig(
                        fs.getPath("/kaas-data"),
                        c.segmentBytes(),
                        c.indexIntervalBytes(),
                        c.flushIntervalMessages(),
                        c.fsyncTimeout(),
                        c.checkpointIntervalBytes(),
                        c.leaderEpoch(),
                        c.clock(),
                        c.maxOpenFiles(),
                        c.cleaner()),
                observer);
    }

    @Override
    public TopicInfo createTopic(String name, int partitions, TopicConfig config) {
        return engine.createTopic(name, partitions, config);
    }

    @Override
    public void deleteTopic(String name) {
        engine.deleteTopic(name);
    }

    @Override
    public TopicInfo createPartitions(String name, int totalPartitions) {
        return engine.createPartitions(name, totalPartitions);
    }

    @Override
    public TopicInfo alterTopicConfig(String name, java.util.function.UnaryOperator<TopicConfig> change) {
        return engine.alterTopicConfig(name, change);
    }

    @Override
    public Optional<TopicInfo> topic(String name) {
        return engine.topic(name);
    }

    @Override
    public Collection<TopicInfo> topics() {
        return engine.topics();
    }

    @Override
    public PartitionLog partition(TopicPartition tp) {
        return engine.partition(tp);
    }

    @Override
    public java.util.Optional<PartitionLog> partitionIfOpen(TopicPartition tp) {
        return engine.partitionIfOpen(tp);
    }

    @Override
    public java.util.concurrent.Executor fsyncingAfterTasks(java.util.concurrent.Executor pool) {
        return engine.fsyncingAfterTasks(pool);
    }

    @Override
    public PartitionState partitionState(TopicPartition tp) {
        return engine.partitionState(tp);
    }

    @Override
    public boolean ready() {
        return engine.ready();
    }

    @Override
    public LoadProgress loadProgress() {
        return engine.loadProgress();
    }

    @Override
    public Map<TopicPartition, String> refusedPartitions() {
        return engine.refusedPartitions();
    }

    @Override
    public Collection<PartitionLog> openPartitions() {
        return engine.openPartitions();
    }

    @Override
    public int runRetention(long nowMs) {
        return engine.runRetention(nowMs);
    }

    @Override
    public Path dataDir() {
        return engine.dataDir();
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            try {
                fs.close();
            } catch (IOException ignored) {
                // in-memory: nothing to lose
            }
        }
    }
}
