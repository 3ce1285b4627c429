package io.kaas.broker.cluster;

import io.kaas.storage.PartitionLog;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.TopicToCreate;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.TopicName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's view of topics over the engine: name checks, auto-creation and topic-id lookup (Fetch
 * v13+, Produce v13 name topics by id). Thread-safe; the engine is the source of truth, the id map is
 * only a cache refilled from it on a miss.
 */
public final class TopicCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(TopicCatalog.class);
    /**
     * New partitions one CreateTopics or CreatePartitions request may ask for, all topics together
     * (Apache's controller limit). Each partition is a directory, files and open descriptors: without a
     * limit one flipped bit in a 4-byte count has the broker create millions before it answers.
     */
    public static final int MAX_NEW_PARTITIONS_PER_REQUEST = 10_000;

    private final StorageEngine engine;
    private final boolean autoCreate;
    private final int defaultPartitions;
    private final Map<UUID, String> namesById = new ConcurrentHashMap<>();
    private volatile java.util.function.Consumer<String> deleter;

    public TopicCatalog(StorageEngine engine, boolean autoCreate, int defaultPartitions) {
        this.engine = engine;
        this.deleter = engine::deleteTopic;
        this.autoCreate = autoCreate;
        this.defaultPartitions = defaultPartitions;
    }

    public StorageEngine engine() {
        return engine;
    }

    public int defaultPartitions() {
        return defaultPartitions;
    }

    public boolean autoCreateEnabled() {
        return autoCreate;
    }

    /**
     * The engine's rule ({@link TopicName}) as the error Kafka clients expect (INVALID_TOPIC_EXCEPTION), so
     * CreateTopics and auto-creation refuse a name before the engine would.
     *
     * @throws InvalidTopicException naming the rule broken
     */
    public static void validateName(String name) {
        TopicName.problem(name).ifPresent(p -> {
            throw new InvalidTopicException(p);
        });
    }

    /**
     * {@link #validateName}, and not one of Kafka's internal topics ({@code Topic.isInternal}: {@code __consumer_offsets},
     * {@code __transaction_state}, {@code __share_group_state}): kaas keeps that state in files under {@code __cluster},
     * and with several brokers the coordinator slots go by those names in the assignment (CoordinatorSlots), so a topic
     * of that name would be taken for slots and never served. Apache refuses its own metadata topic the same way.
     *
     * @throws InvalidTopicException naming the rule broken
     */
    public static void validateNewName(String name) {
        validateName(name);
        if (org.apache.kafka.common.internals.Topic.isInternal(name)) {
            throw new InvalidTopicException("Creation of internal topic " + name
                    + " is prohibited: kaas keeps its state in " + "files under __cluster, not in a topic");
        }
    }

    /** True when {@code topic} exists and has a partition {@code index}: the gate every partition-level API applies. */
    public static boolean hasPartition(Optional<TopicInfo> topic, int index) {
        return topic.isPresent() && index >= 0 && index < topic.get().partitions();
    }

    public Optional<TopicInfo> topic(String name) {
        return engine.topic(name);
    }

    public Collection<TopicInfo> topics() {
        return engine.topics();
    }

    public Optional<TopicInfo> topicById(UUID id) {
        String name = namesById.get(id);
        if (name != null) {
            Optional<TopicInfo> t = engine.topic(name);
            if (t.isPresent() && t.get().topicId().equals(id)) {
                return t;
            }
            namesById.remove(id);
        }
        for (TopicInfo t : engine.topics()) {
            namesById.put(t.topicId(), t.name());
        }
        name = namesById.get(id);
        return name == null
                ? Optional.empty()
                : engine.topic(name).filter(t -> t.topicId().equals(id));
    }

    public TopicInfo create(String name, int partitions, TopicConfig config) {
        validateNewName(name);
        TopicInfo info = engine.createTopic(name, partitions, config);
        namesById.put(info.topicId(), info.name());
        LOG.info("created topic {} ({} partitions, id {})", name, partitions, info.topicId());
        return info;
    }

    /**
     * Creates {@code wanted} as {@link StorageEngine#createTopics} does, several at once: one future per
     * topic, in order. The caller checked each name ({@link #validateNewName}).
     */
    public List<CompletableFuture<TopicInfo>> createAll(List<TopicToCreate> wanted) {
        List<CompletableFuture<TopicInfo>> out = new ArrayList<>(wanted.size());
        for (CompletableFuture<TopicInfo> f : engine.createTopics(wanted)) {
            out.add(f.thenApply(info -> {
                namesById.put(info.topicId(), info.name());
                LOG.info("created topic {} ({} partitions, id {})", info.name(), info.partitions(), info.topicId());
                return info;
            }));
        }
        return out;
    }

    /**
     * The topic, created with the default partition count when missing and auto-creation is on (and
     * {@code allowed} by the request). Empty when it does not exist and may not be created.
     */
    public Optional<TopicInfo> getOrAutoCreate(String name, boolean allowed) {
        Optional<TopicInfo> existing = engine.topic(name);
        if (existing.isPresent() || !autoCreate || !allowed) {
            return existing;
        }
        try {
            return Optional.of(create(name, defaultPartitions, TopicConfig.EMPTY));
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.TOPIC_EXISTS) {
                if (engine.topic(name).isEmpty()) {
                    engine.refreshTopics(); // created by another broker sharing the directory
                }
                return engine.topic(name);
            }
            throw e;
        }
    }

    /**
     * With several brokers over one directory, deletion goes through the cluster (every owner closes the topic's
     * partitions before its directory is removed): {@code deleter} replaces the engine's own delete.
     */
    public void deleteThrough(java.util.function.Consumer<String> deleter) {
        this.deleter = deleter;
    }

    public void delete(String name) {
        Optional<TopicInfo> t = engine.topic(name);
        deleter.accept(name);
        t.ifPresent(info -> namesById.remove(info.topicId()));
        LOG.info("deleted topic {}", name);
    }

    public PartitionLog partition(String topic, int partition) {
        return engine.partition(new TopicPartition(topic, partition));
    }

    /** The partition if it is loaded already, without loading it or waiting (see {@code StorageEngine#partitionIfOpen}). */
    public Optional<PartitionLog> partitionIfOpen(String topic, int partition) {
        return engine.partitionIfOpen(new TopicPartition(topic, partition));
    }
}
