package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Many topics and partitions under one data directory. {@link DiskStorageEngine} is the engine;
 * {@link MemoryStorageEngine} is the same engine on an in-memory filesystem (dev mode).
 *
 * <p>Partitions are loaded (recovered) at start-up or on first use and stay loaded until the topic is
 * deleted or the engine closes; a loaded partition holds no file open while idle. Thread-safe.
 */
public interface StorageEngine extends AutoCloseable {
    /** @throws StorageException TOPIC_EXISTS */
    TopicInfo createTopic(String name, int partitions, TopicConfig config);

    /** Closes and removes the topic's partitions and files. @throws StorageException UNKNOWN_TOPIC_OR_PARTITION */
    void deleteTopic(String name);

    /** Grows the topic to {@code totalPartitions}. */
    TopicInfo createPartitions(String name, int totalPartitions);

    /** Replaces the topic's config (written to .config.json). */
    TopicInfo updateTopicConfig(String name, TopicConfig config);

    Optional<TopicInfo> topic(String name);

    Collection<TopicInfo> topics();

    /** Opens on first use. @throws StorageException UNKNOWN_TOPIC_OR_PARTITION */
    PartitionLog partition(TopicPartition tp);

    /**
     * The partitions open right now, without opening any (so without recovery or locks): what a metrics
     * scrape reads. A snapshot; it may miss a partition opening concurrently.
     */
    Collection<PartitionLog> openPartitions();

    /**
     * A partition's offsets, epoch and size as last published, from memory: what Metadata, ListOffsets
     * (latest, earliest) and DescribeLogDirs need, without reading or holding any of its files. Before
     * {@link #ready} a partition not loaded yet is loaded first.
     *
     * @throws StorageException UNKNOWN_TOPIC_OR_PARTITION
     */
    default PartitionState partitionState(TopicPartition tp) {
        return partition(tp).state();
    }

    /**
     * True once every partition found at start-up is loaded (unclean ones recovered) or was refused
     * (damaged; it answers errors until repaired): what a readiness probe reports.
     */
    default boolean ready() {
        return true;
    }

    /** How far the start-up load got. */
    default LoadProgress loadProgress() {
        return new LoadProgress(0, 0, 0);
    }

    /** Partitions found at start-up, those loaded and those refused so far. */
    record LoadProgress(int total, int loaded, int refused) {}

    /**
     * Partitions of existing topics whose last load was refused (damage found by recovery; they answer
     * errors until repaired), with why, in topic-partition order: what a readiness probe names.
     */
    default Map<TopicPartition, String> refusedPartitions() {
        return Map.of();
    }

    /** One retention pass over every partition (size and time); returns segments removed. */
    int runRetention(long nowMs);

    /** The data directory (for DescribeLogDirs); an in-memory path in dev mode. */
    Path dataDir();

    /** Closes every partition: fsync, manifest, checkpoint at EOF, producer snapshot, locks released. */
    @Override
    void close();
}
