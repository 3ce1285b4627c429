package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.layout.OwnerLock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;

/**
 * What differs between an engine that owns its data directory alone ({@link ExclusiveDirectory}) and
 * one of several brokers sharing it ({@link SharedDirectory}): the OS lock, which partitions open and
 * when, how topics are read, created and changed, how a partition is given up at close.
 * {@link DiskStorageEngine} asks this one object instead of testing a flag.
 *
 * <p>Thread-safe: called from request threads, loaders and the closing thread; an implementation's
 * topic-level steps run under the engine's monitor, as the engine's topic metadata changes do.
 */
sealed interface DirectoryOwnership permits ExclusiveDirectory, SharedDirectory {
    /** The OS lock held for the engine's life on {@code dataDir} ({@link OwnerLock#none} when shared). */
    OwnerLock lockDirectory(Path dataDir);

    /** Whether every partition is loaded at start-up and as topics or partitions are created, or none until taken over. */
    boolean loadsEveryPartition();

    /** The topic directories to know ({@link TopicFiles#list}). */
    List<Path> listTopics(Path dataDir) throws IOException;

    /** A topic directory seen for the first time ({@link TopicFiles#read}); empty: look again later. */
    Optional<TopicInfo> readTopic(Path dir) throws IOException;

    /**
     * A topic directory known here, seen again at a refresh: what another broker changed of it (more
     * partitions, a new config), or {@code known} itself.
     */
    TopicInfo refreshTopic(Path dir, TopicInfo known) throws IOException;

    /** Whether a topic whose directory vanished (or was marked deleted) is forgotten at a refresh. */
    boolean forgetsVanishedTopics();

    /** This engine no longer knows {@code topic}. */
    void topicForgotten(String topic);

    /**
     * Creates a new topic's files ({@link TopicFiles#create}), with the directories of the partitions
     * {@code inHome} places in this data dir; TOPIC_EXISTS when another broker created it first.
     */
    void createTopic(Path dataDir, TopicInfo info, IntPredicate inHome) throws IOException;

    /** Applies {@code change} to the topic's config and writes it: the config in force after. */
    TopicConfig alterTopicConfig(Path topicDir, TopicConfig known, UnaryOperator<TopicConfig> change);

    /** NOT_OWNED when this engine may not open {@code tp}; nothing of it is read or written then. */
    void checkMayOpen(TopicPartition tp);

    /** Whether an open {@code tp} is served here now. */
    boolean serves(TopicPartition tp);

    /** Opens {@code tp}'s partition: recovery, and when shared the takeover in its epoch. */
    Partition load(
            Path dir,
            TopicPartition tp,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            FileHandleCache files,
            EngineObserver observer);

    /** Before a takeover's open: {@code tp} is owned here in {@code epoch}. Unsupported alone. */
    void taking(TopicPartition tp, int epoch);

    /** The takeover of {@code tp} in {@code epoch} failed: not owned here, unless a newer takeover began. */
    void takeOverFailed(TopicPartition tp, int epoch);

    /** {@code tp} is no longer owned here (released or abandoned). */
    void released(TopicPartition tp);

    /** The partitions taken over here, with their epochs (empty alone). */
    Map<TopicPartition, Integer> taken();

    /** Marking a topic deleted for the other brokers: unsupported alone (there are none). */
    void checkMayMarkDeleted(Path dataDir);

    /** Whether close gives partitions up without writing ({@link Partition#abandon}): only a fenced shared engine. */
    boolean abandonsAtClose(boolean fenced);
}
