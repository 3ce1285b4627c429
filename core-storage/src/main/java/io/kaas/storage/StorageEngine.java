package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

    /**
     * Creates several topics (one CreateTopics request), as many at once as the engine affords: one future
     * per topic, in order, each completing with the topic or failing as {@link #createTopic} would throw.
     * Here one after the other, on the calling thread.
     */
    default java.util.List<java.util.concurrent.CompletableFuture<TopicInfo>> createTopics(
            java.util.List<TopicToCreate> topics) {
        java.util.List<java.util.concurrent.CompletableFuture<TopicInfo>> out = new java.util.ArrayList<>();
        for (TopicToCreate t : topics) {
            try {
                out.add(java.util.concurrent.CompletableFuture.completedFuture(
                        createTopic(t.name(), t.partitions(), t.config())));
            } catch (RuntimeException e) {
                out.add(java.util.concurrent.CompletableFuture.failedFuture(e));
            }
        }
        return out;
    }

    /** Closes and removes the topic's partitions and files. @throws StorageException UNKNOWN_TOPIC_OR_PARTITION */
    void deleteTopic(String name);

    /** Grows the topic to {@code totalPartitions}. */
    TopicInfo createPartitions(String name, int totalPartitions);

    /** Replaces the topic's config (written to .config.json). */
    default TopicInfo updateTopicConfig(String name, TopicConfig config) {
        return alterTopicConfig(name, current -> config);
    }

    /**
     * Changes the topic's config from what it is now and writes it to .config.json. Over a directory
     * several brokers share, "now" is the file's, read under its lock, so concurrent changes through
     * different brokers are all kept. {@code change} may throw (an invalid result): nothing is written then.
     */
    TopicInfo alterTopicConfig(String name, java.util.function.UnaryOperator<TopicConfig> change);

    Optional<TopicInfo> topic(String name);

    Collection<TopicInfo> topics();

    /** Opens on first use. @throws StorageException UNKNOWN_TOPIC_OR_PARTITION */
    PartitionLog partition(TopicPartition tp);

    /**
     * Runs tasks on {@code pool}; when a task's appends ask for fsyncs, the last of them runs on the task's
     * own thread right after the task returned, instead of on a committer thread woken for it (the others
     * start on committers at once). For a pool of threads that append and then park (request handlers):
     * one thread switch less per acknowledged acks=all request. Same promise: nothing is acknowledged
     * before its fsync. A task on it must not block waiting for its own acks=all append: that fsync
     * waits for the task to return.
     */
    default java.util.concurrent.Executor fsyncingAfterTasks(java.util.concurrent.Executor pool) {
        return pool;
    }

    /**
     * The partition if it is loaded already, without loading it (no recovery, no files opened, no
     * waiting), else empty: what a thread that must not block (a network event loop) may use; it
     * calls {@link #partition} from a thread that may block when this is empty.
     */
    default java.util.Optional<PartitionLog> partitionIfOpen(TopicPartition tp) {
        return java.util.Optional.empty();
    }

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

    /**
     * Several brokers over one shared directory ({@link DiskStorageEngine#shared}): takes {@code tp} over in
     * leader epoch {@code epoch}, which the caller won in its coordination store and which must be newer
     * than any epoch the partition recorded. The partition is recovered (a fenced ex-leader's late writes
     * past the start of a newer epoch discarded, see {@code leader-epoch-checkpoint.json}), the epoch's
     * start recorded, and a segment named with the epoch started; from then on it is open here. A partition
     * open here already is closed first.
     *
     * @throws StorageException FENCED_LEADER_EPOCH when the partition already recorded a newer epoch
     */
    default void takeOver(TopicPartition tp, int epoch) {
        throw new UnsupportedOperationException("this engine does not share its directory");
    }

    /**
     * Several brokers over one shared directory: stops serving {@code tp} (closed cleanly: fsync, state
     * files); later calls for it fail with {@link StorageException.Kind#NOT_OWNED}. No-op when not taken.
     */
    default void release(TopicPartition tp) {}

    /**
     * Several brokers over one shared directory: drops {@code tp} without writing anything more to its
     * files (this broker was fenced: another may own it already). No-op when not taken.
     */
    default void abandon(TopicPartition tp) {}

    /** Several brokers over one shared directory: the partitions taken over here, with their epochs. */
    default Map<TopicPartition, Integer> taken() {
        return Map.of();
    }

    /** Re-reads the topics in the data directory (another broker sharing it may have created or grown some). */
    default void refreshTopics() {}

    /**
     * Several brokers over one directory: the first step of deleting {@code name} (the broker asked to delete
     * it takes it): it is marked deleted on the volume, durably, forgotten here and what this engine held of it
     * closed. Every other engine forgets it at its next {@link #refreshTopics} (closing what it held) and never
     * opens or recreates it; {@link #removeDeletedTopic} removes the directory once no broker holds a partition.
     */
    default void markTopicDeleted(String name) {
        throw new UnsupportedOperationException("only an engine sharing its directory marks topics deleted");
    }

    /** Topics marked deleted whose directory is still there, with their partition counts. */
    default Map<String, Integer> topicsBeingDeleted() {
        return Map.of();
    }

    /** Removes a topic marked deleted (renamed away in one step, then deleted); a no-op when it is gone already. */
    default void removeDeletedTopic(String name) {}

    /** One retention pass over every partition (size and time); returns segments removed. */
    int runRetention(long nowMs);

    /** The data directory: the first of {@link #logDirs}, holding {@code __cluster/}; an in-memory path in dev mode. */
    Path dataDir();

    /** The volume pool ({@code log.dirs}, KIP-112), first the {@link #dataDir}. */
    default List<LogDir> logDirs() {
        return List.of(LogDir.of(dataDir()));
    }

    /** The dir of {@link #logDirs} that {@code tp} lives in; empty when it is nowhere yet. */
    default Optional<LogDir> logDirOf(TopicPartition tp) {
        return Optional.of(logDirs().get(0));
    }

    /**
     * Moves {@code tp} to {@code to}, one of {@link #logDirs}, while it is served (AlterReplicaLogDirs, KIP-113): in the
     * background; a no-op when it is there already. An engine of one dir has nowhere to move it.
     *
     * @return completes when the partition is in {@code to} and its old copy is gone, or fails with why it stayed
     * @throws StorageException UNKNOWN_TOPIC_OR_PARTITION, or IO / DAMAGED when the partition cannot be opened
     */
    default CompletableFuture<Void> moveToLogDir(TopicPartition tp, LogDir to) {
        if (!logDirOf(tp).map(to::equals).orElse(false)) {
            throw new IllegalArgumentException(to.path() + " is not a log dir of this engine");
        }
        return CompletableFuture.completedFuture(null);
    }

    /** The copy a running move is making of {@code tp} (Apache's future replica), if one is. */
    default Optional<FutureReplica> futureReplica(TopicPartition tp) {
        return Optional.empty();
    }

    /**
     * The dirs of {@link #logDirs} that are offline (a disk failure at run time, or unusable at start), with why, in
     * pool order: their partitions refuse every call ({@link StorageException.Kind#IO}) until a restart.
     */
    default Map<LogDir, String> offlineLogDirs() {
        return Map.of();
    }

    /** Whether {@code tp} lives in an offline dir (or, with a dir offline since the start, is found in no dir). */
    default boolean inOfflineLogDir(TopicPartition tp) {
        Map<LogDir, String> offline = offlineLogDirs();
        return !offline.isEmpty() && logDirOf(tp).map(offline::containsKey).orElse(true);
    }

    /**
     * Completes when the home dir (the first, holding {@code __cluster/}) failed in a pool of several: the broker
     * cannot go on, as Apache's halts when its metadata log dir fails. Never completes otherwise.
     */
    default java.util.concurrent.CompletableFuture<StorageException> homeDirFailed() {
        return new java.util.concurrent.CompletableFuture<>();
    }

    /** Closes every partition: fsync, manifest, checkpoint at EOF, producer snapshot, locks released. */
    @Override
    void close();
}
