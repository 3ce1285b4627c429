package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A disk engine's topics, in memory and on disk: read at start-up and at each refresh, created, grown,
 * altered, deleted. The files are {@link TopicFiles}'s; what differs when several brokers share the
 * directory is the {@link DirectoryOwnership}'s; a change reaches the topic's loaded partitions
 * through {@link OpenPartitions}.
 *
 * <p>Thread rule: every change runs under {@link DiskStorageEngine}'s monitor (one topic change at a
 * time, never during close), except a create's {@link #writeFiles} and {@link #publish}, which run outside
 * it for several topics at once: the name is held from {@link #reserve} on, so no other change can meet
 * the topic before it is published. {@link #get} and {@link #all} read a concurrent map and take no lock.
 */
final class DiskTopics {
    private static final Logger LOG = LoggerFactory.getLogger(DiskTopics.class);

    private final Path dataDir;
    private final DirectoryOwnership ownership;
    private final OpenPartitions partitions;
    private final PartitionPlaces places;
    private final Map<String, TopicInfo> topics = new ConcurrentHashMap<>();
    /** Names reserved by a create whose files are being written ({@link #reserve}). */
    private final Set<String> creating = ConcurrentHashMap.newKeySet();

    DiskTopics(Path dataDir, DirectoryOwnership ownership, OpenPartitions partitions, PartitionPlaces places) {
        this.dataDir = dataDir;
        this.ownership = ownership;
        this.partitions = partitions;
        this.places = places;
    }

    /** The topic, or null. Lock-free. */
    TopicInfo get(String name) {
        return topics.get(name);
    }

    /** Every topic known now. Lock-free. */
    Collection<TopicInfo> all() {
        return List.copyOf(topics.values());
    }

    /** Reads the topics on disk: new ones, and what another broker changed or deleted of known ones. */
    void load() throws IOException {
        Set<String> seen = new HashSet<>();
        for (Path d : ownership.listTopics(dataDir)) {
            String name = d.getFileName().toString();
            seen.add(name);
            if (creating.contains(name)) {
                continue; // its files are being written here: published when they are all there
            }
            TopicInfo known = topics.get(name);
            if (known == null) {
                ownership.readTopic(d).ifPresent(info -> topics.put(name, withPartitionsElsewhere(info)));
                continue;
            }
            TopicInfo now = ownership.refreshTopic(d, known);
            if (!now.config().equals(known.config())) {
                applyConfig(now, now.config());
            } else if (now != known) {
                topics.put(name, now);
            }
        }
        if (ownership.forgetsVanishedTopics()) {
            for (String known : List.copyOf(topics.keySet())) {
                if (!seen.contains(known)) {
                    forget(known);
                }
            }
        }
    }

    /** {@code info} with the partitions other dirs of the pool hold (the home dir's topic dir may lack the last ones). */
    private TopicInfo withPartitionsElsewhere(TopicInfo info) {
        int n = places.partitionCount(info.name());
        return n <= info.partitions() ? info : new TopicInfo(info.name(), info.topicId(), n, info.config());
    }

    /** Shared: {@code name} is another broker's to delete: drop it, closing (cleanly) what this engine held of it. */
    private void forget(String name) {
        ownership.topicForgotten(name);
        places.forget(name);
        TopicInfo info = topics.remove(name);
        if (info != null) {
            LOG.info("topic {} is being deleted: closing its partitions here", name);
            for (int p = 0; p < info.partitions(); p++) {
                TopicPartition tp = new TopicPartition(name, p);
                ownership.released(tp);
                partitions.drop(tp, false);
            }
        }
    }

    void markDeleted(String name) {
        ownership.checkMayMarkDeleted(dataDir);
        if (!topics.containsKey(name)) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        Path dir = TopicDir.of(dataDir, name);
        try {
            TopicFiles.markDeleted(dir);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot mark the topic deleted: " + e.getMessage(), e);
        }
        forget(name);
    }

    Map<String, Integer> beingDeleted() {
        try {
            return TopicDir.markedDeleted(dataDir);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dataDir + ": cannot list topics: " + e.getMessage(), e);
        }
    }

    void removeDeleted(String name) {
        try {
            TopicDir.removeMarkedDeleted(dataDir, name);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    TopicDir.of(dataDir, name) + ": cannot delete topic: " + e.getMessage(),
                    e);
        }
    }

    /** A topic being created: its name held, its partitions placed, its files not written yet. */
    record Reservation(TopicInfo info, Map<Integer, io.kaas.storage.layout.LogDir> placed) {}

    /**
     * First step of a create, under the engine's monitor: the name checked and held (a second create of it
     * meets TOPIC_EXISTS until this one is published or given up), the partitions placed. Then
     * {@link #writeFiles} outside the monitor, several topics at once, then {@link #publish}.
     */
    Reservation reserve(String name, int partitions, TopicConfig topicConfig) {
        TopicName.requireLegal(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, got " + partitions);
        }
        if (topics.containsKey(name) || !creating.add(name)) {
            throw new StorageException(StorageException.Kind.TOPIC_EXISTS, "topic " + name + " already exists");
        }
        TopicInfo info = new TopicInfo(name, UUID.randomUUID(), partitions, topicConfig);
        try {
            return new Reservation(info, places.place(info, 0, partitions));
        } catch (RuntimeException e) {
            creating.remove(name);
            throw e;
        }
    }

    /** The reserved topic's files, every entry fsynced; on failure the reservation is given up. No lock needed. */
    void writeFiles(Reservation r) {
        TopicInfo info = r.info();
        try {
            ownership.createTopic(dataDir, info, p -> places.inHome(r.placed(), p));
            places.createOutsideHome(info, r.placed());
        } catch (IOException | RuntimeException e) {
            giveUp(r);
            if (e instanceof RuntimeException x) {
                throw x;
            }
            throw new StorageException(
                    StorageException.Kind.IO,
                    TopicDir.of(dataDir, info.name()) + ": cannot create topic: " + e.getMessage(),
                    e);
        }
    }

    /** Last step: the topic is known. */
    TopicInfo publish(Reservation r) {
        topics.put(r.info().name(), r.info());
        creating.remove(r.info().name());
        return r.info();
    }

    /** The reservation is dropped (the engine closed, or its files failed); files already written stay. */
    void giveUp(Reservation r) {
        places.forget(r.info().name());
        creating.remove(r.info().name());
    }

    void delete(String name) {
        TopicInfo known = topics.get(name);
        if (known != null) {
            places.checkDeletable(known);
        }
        TopicInfo info = topics.remove(name);
        if (info == null) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        for (int p = 0; p < info.partitions(); p++) {
            partitions.drop(new TopicPartition(name, p), false);
        }
        try {
            places.deleteOutsideHome(info);
            TopicFiles.delete(dataDir, info);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    TopicDir.of(dataDir, name) + ": cannot delete topic: " + e.getMessage(),
                    e);
        }
    }

    TopicInfo addPartitions(String name, int totalPartitions) {
        TopicInfo info = require(name);
        if (totalPartitions <= info.partitions()) {
            throw new IllegalArgumentException("topic " + name + " has " + info.partitions()
                    + " partitions; the new count must be larger, got " + totalPartitions);
        }
        Path dir = TopicDir.of(dataDir, name);
        Map<Integer, io.kaas.storage.layout.LogDir> placed = places.place(info, info.partitions(), totalPartitions);
        try {
            for (int p = info.partitions(); p < totalPartitions; p++) {
                if (places.inHome(placed, p)) {
                    Files.createDirectories(TopicDir.partition(dir, p));
                }
            }
            AtomicFile.fsyncDirectory(dir);
            places.createOutsideHome(info, placed);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot add partitions: " + e.getMessage(), e);
        }
        TopicInfo grown = new TopicInfo(name, info.topicId(), totalPartitions, info.config());
        topics.put(name, grown);
        return grown;
    }

    TopicInfo alterConfig(String name, UnaryOperator<TopicConfig> change) {
        TopicInfo info = require(name);
        Path dir = TopicDir.of(dataDir, name);
        TopicConfig next = ownership.alterTopicConfig(dir, info.config(), change);
        places.writeConfigCopies(name, next);
        return applyConfig(info, next);
    }

    /** Puts {@code next} in force for the topic and its open partitions. */
    private TopicInfo applyConfig(TopicInfo info, TopicConfig next) {
        TopicInfo updated = new TopicInfo(info.name(), info.topicId(), info.partitions(), next);
        topics.put(info.name(), updated);
        partitions.applyConfig(info.name(), next);
        return updated;
    }

    TopicInfo require(String name) {
        TopicInfo info = topics.get(name);
        if (info == null) {
            throw new StorageException(
                    StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        return info;
    }
}
