package io.kaas.storage;

import io.kaas.storage.format.StateJson;
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
 * The engine owns its data directory alone: one OS lock on {@code <data>/.lock} for its whole life
 * ({@link OwnerLock#acquireDataDir}), every partition loaded at start-up, any partition opens, and topic
 * files change only through this process.
 */
final class ExclusiveDirectory implements DirectoryOwnership {
    @Override
    public OwnerLock lockDirectory(Path dataDir) {
        return OwnerLock.acquireDataDir(dataDir);
    }

    @Override
    public boolean loadsEveryPartition() {
        return true;
    }

    @Override
    public List<Path> listTopics(Path dataDir) throws IOException {
        return TopicFiles.list(dataDir, false);
    }

    @Override
    public Optional<TopicInfo> readTopic(Path dir) throws IOException {
        return TopicFiles.read(dir, false);
    }

    @Override
    public TopicInfo refreshTopic(Path dir, TopicInfo known) {
        return known; // nobody else changes them
    }

    @Override
    public boolean forgetsVanishedTopics() {
        return false;
    }

    @Override
    public void topicForgotten(String topic) {}

    @Override
    public void createTopic(Path dataDir, TopicInfo info, IntPredicate inHome) throws IOException {
        TopicFiles.create(dataDir, info, false, inHome);
    }

    @Override
    public TopicConfig alterTopicConfig(Path topicDir, TopicConfig known, UnaryOperator<TopicConfig> change) {
        TopicConfig next = change.apply(known);
        StateJson.write(topicDir.resolve(TopicConfig.FILE_NAME), next);
        return next;
    }

    @Override
    public void checkMayOpen(TopicPartition tp) {}

    @Override
    public boolean serves(TopicPartition tp) {
        return true;
    }

    @Override
    public Partition load(
            Path dir,
            TopicPartition tp,
            EngineConfig config,
            TopicConfig topicConfig,
            EngineExecutors executors,
            FileHandleCache files,
            EngineObserver observer) {
        return PartitionLoader.load(dir, tp, config, topicConfig, executors, files, observer);
    }

    @Override
    public void taking(TopicPartition tp, int epoch) {
        throw notShared("take over " + tp);
    }

    @Override
    public void takeOverFailed(TopicPartition tp, int epoch) {}

    @Override
    public void released(TopicPartition tp) {}

    @Override
    public Map<TopicPartition, Integer> taken() {
        return Map.of();
    }

    @Override
    public void checkMayMarkDeleted(Path dataDir) {
        throw new UnsupportedOperationException(dataDir + ": this engine does not share its directory");
    }

    @Override
    public boolean abandonsAtClose(boolean fenced) {
        return false;
    }

    private static UnsupportedOperationException notShared(String what) {
        return new UnsupportedOperationException("cannot " + what + ": this engine does not share its directory");
    }
}
