package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.TopicDir;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;

/**
 * One of several brokers over one shared directory, each owning the partitions its coordination store
 * assigns it. No OS lock (NFS does not carry OS locks reliably; ownership is the store's lease), nothing
 * loaded at start: a partition opens only once taken over in an epoch, any other fails
 * {@link StorageException.Kind#NOT_OWNED} without a byte of it read or written. Other brokers create,
 * grow, alter and delete topics: a refresh picks that up ({@link SharedTopicConfigs} for configs).
 */
final class SharedDirectory implements DirectoryOwnership {
    /** The partitions taken over here and the epoch each was taken in. */
    private final Map<TopicPartition, Integer> taken = new ConcurrentHashMap<>();

    private final SharedTopicConfigs configs = new SharedTopicConfigs();

    @Override
    public OwnerLock lockDirectory(Path dataDir) {
        return OwnerLock.none();
    }

    @Override
    public boolean loadsEveryPartition() {
        return false;
    }

    @Override
    public List<Path> listTopics(Path dataDir) throws IOException {
        return TopicFiles.list(dataDir, true);
    }

    @Override
    public Optional<TopicInfo> readTopic(Path dir) throws IOException {
        Optional<TopicInfo> info = TopicFiles.read(dir, true);
        configs.remember(dir);
        return info;
    }

    @Override
    public TopicInfo refreshTopic(Path dir, TopicInfo known) throws IOException {
        TopicInfo now = known;
        // Another broker added partitions: a known topic only grows.
        int n = TopicDir.partitionCount(dir);
        if (n > now.partitions()) {
            now = new TopicInfo(now.name(), now.topicId(), n, now.config());
        }
        // Another broker altered its config: in force here too.
        Optional<TopicConfig> changed = configs.changedSinceRead(dir);
        if (changed.isPresent() && !changed.get().equals(now.config())) {
            now = new TopicInfo(now.name(), now.topicId(), now.partitions(), changed.get());
        }
        return now;
    }

    @Override
    public boolean forgetsVanishedTopics() {
        return true;
    }

    @Override
    public void topicForgotten(String topic) {
        configs.forget(topic);
    }

    @Override
    public void createTopic(Path dataDir, TopicInfo info, IntPredicate inHome) throws IOException {
        Path dir = TopicDir.of(dataDir, info.name());
        try {
            TopicFiles.create(dataDir, info, true, inHome);
        } catch (FileAlreadyExistsException e) {
            if (dir.toString().equals(e.getFile())) {
                // Another broker sharing the directory created it first: one of two creators wins the mkdir.
                throw new StorageException(
                        StorageException.Kind.TOPIC_EXISTS,
                        "topic " + info.name() + " already exists (created by another broker)");
            }
            throw e;
        }
        configs.remember(dir);
    }

    @Override
    public TopicConfig alterTopicConfig(Path topicDir, TopicConfig known, UnaryOperator<TopicConfig> change) {
        return configs.alter(topicDir, known, change); // from the file: another broker may have changed it
    }

    @Override
    public void checkMayOpen(TopicPartition tp) {
        if (!taken.containsKey(tp)) {
            throw new StorageException(StorageException.Kind.NOT_OWNED, tp + " is not owned by this broker");
        }
    }

    @Override
    public boolean serves(TopicPartition tp) {
        return taken.containsKey(tp);
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
        Integer epoch = taken.get(tp);
        return epoch != null
                ? PartitionLoader.takeOver(dir, tp, config, topicConfig, executors, files, observer, epoch)
                : PartitionLoader.load(dir, tp, config, topicConfig, executors, files, observer);
    }

    @Override
    public void taking(TopicPartition tp, int epoch) {
        taken.put(tp, epoch);
    }

    @Override
    public void takeOverFailed(TopicPartition tp, int epoch) {
        taken.remove(tp, epoch);
    }

    @Override
    public void released(TopicPartition tp) {
        taken.remove(tp);
    }

    @Override
    public Map<TopicPartition, Integer> taken() {
        return Map.copyOf(taken);
    }

    @Override
    public void checkMayMarkDeleted(Path dataDir) {}

    @Override
    public boolean abandonsAtClose(boolean fenced) {
        return fenced;
    }
}
