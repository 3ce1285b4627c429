package io.kaas.storage;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PartitionMove;
import io.kaas.storage.layout.PlacementRule;
import io.kaas.storage.layout.PoolContents;
import io.kaas.storage.layout.TopicDir;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each partition of a disk engine lives in its volume pool ({@link LogDirs}, KIP-112), and where a new one
 * goes ({@link PlacementRule}). What the dirs hold on disk is the record: found at open ({@link PoolContents},
 * a partition in two dirs refused), kept here as partitions are placed. The home dir is {@link DiskTopics}'s
 * ({@link TopicFiles}); this class keeps the other dirs' copies of a topic's id and config (recovery reads a
 * partition's {@code ../.config.json}: a compacted topic's offset gaps are no damage) in step with it.
 *
 * <p>Thread-safe: placements are serialised on this object (topic changes under the engine's monitor, and a
 * loader placing a partition whose directory is missing); look-ups read a concurrent map.
 */
final class PartitionPlaces {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionPlaces.class);

    private final LogDirs pool;
    private final PlacementRule rule;
    /** A loaded partition's size, for {@link PlacementRule#BYTES}; 0 when not loaded. */
    private final ToLongFunction<TopicPartition> sizes;

    /** Which dirs are offline: never placed on, never written to. */
    private final LogDirFailures failures;

    private final Map<TopicPartition, LogDir> located = new ConcurrentHashMap<>();

    PartitionPlaces(LogDirs pool, PlacementRule rule, ToLongFunction<TopicPartition> sizes, LogDirFailures failures) {
        this.pool = pool;
        this.rule = rule;
        this.sizes = sizes;
        this.failures = failures;
    }

    LogDirs pool() {
        return pool;
    }

    private Path home() {
        return pool.home().path();
    }

    /**
     * Reads where every partition is, before the topics are read from the home dir: finishes the other dirs'
     * interrupted deletes, gives a topic found only outside the home dir (the pool was reordered or a dir added)
     * its home files from its copy, refuses a copy whose topic id is not the home's, and rewrites a copy's config
     * that an interrupted alter left behind the home's.
     */
    void load() throws IOException {
        AtomicFile.createDirectories(home());
        for (LogDir d : others()) {
            try {
                AtomicFile.createDirectories(d.path());
                finishDeletes(d.path());
                PoolContents.scan(new LogDirs(List.of(d))); // readable through and through
            } catch (IOException e) {
                if (!failures.handlesDirFailures()) {
                    throw e;
                }
                failures.offlineAtStart(d, "cannot read it: " + e);
            }
        }
        PartitionMove.resolve(online(), false).forEach(a -> LOG.warn("log dir move: {}", a));
        PoolContents contents = PoolContents.scan(online());
        contents.partitions()
                .forEach((topic, parts) -> parts.forEach((p, dir) -> located.put(new TopicPartition(topic, p), dir)));
        for (Map.Entry<String, List<LogDir>> e : contents.topicDirs().entrySet()) {
            String topic = e.getKey();
            Path homeTopic = TopicDir.of(home(), topic);
            for (LogDir d : e.getValue()) {
                if (d.equals(pool.home())) {
                    continue;
                }
                Path copy = TopicDir.of(d.path(), topic);
                if (!Files.isDirectory(homeTopic)) {
                    LOG.warn(
                            "topic {} is in log dir {} but not in the first, {}: taking its id and config from there",
                            topic,
                            d.path(),
                            home());
                    AtomicFile.createDirectories(homeTopic);
                    copyFile(copy, homeTopic, TopicIdentity.FILE_NAME);
                    copyFile(copy, homeTopic, TopicConfig.FILE_NAME);
                    AtomicFile.fsyncDirectory(homeTopic);
                }
                checkSameTopic(topic, homeTopic, copy);
                Optional<TopicConfig> homeConfig = TopicConfigFile.readTopicDir(homeTopic);
                if (!homeConfig.equals(TopicConfigFile.readTopicDir(copy))) {
                    StateJson.write(copy.resolve(TopicConfig.FILE_NAME), homeConfig.orElse(TopicConfig.EMPTY));
                }
            }
        }
    }

    /**
     * Partitions of {@code topic} outside the home dir (whose own directories {@link TopicFiles#read} counts): one
     * more than the highest index.
     */
    int partitionCount(String topic) {
        if (pool.isSingle()) {
            return 0; // every partition is in the home dir: no walk over all of them per topic at start-up
        }
        int n = 0;
        for (Map.Entry<TopicPartition, LogDir> e : located.entrySet()) {
            TopicPartition tp = e.getKey();
            if (tp.topic().equals(topic) && !e.getValue().equals(pool.home())) {
                n = Math.max(n, tp.partition() + 1);
            }
        }
        return n;
    }

    /** The dir {@code tp} lives in; when it is in none yet (its directory vanished, or a topic from before) it is placed now. */
    Path partitionDir(TopicPartition tp, TopicInfo info) {
        LogDir d = located.get(tp);
        if (d == null && failures.anyOffline()) {
            // It may be in the offline dir: placed anew, it would be an empty partition in two dirs once that is back.
            throw new StorageException(
                    StorageException.Kind.IO,
                    tp + " is in no online log dir; it may be in an offline one ("
                            + String.join(
                                    ",",
                                    failures.offlineDirs().keySet().stream()
                                            .map(LogDir::name)
                                            .toList())
                            + ")");
        }
        if (d == null) {
            Map<Integer, LogDir> placed = place(info, tp.partition(), tp.partition() + 1);
            try {
                createOutsideHome(info, placed);
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, tp + ": cannot create its directory: " + e.getMessage(), e);
            }
            d = placed.get(tp.partition());
        }
        return TopicDir.partition(d.path(), tp.topic(), tp.partition());
    }

    /** The dir {@code tp} lives in, if placed. */
    Optional<LogDir> dirOf(TopicPartition tp) {
        return Optional.ofNullable(located.get(tp));
    }

    /**
     * Chooses a dir for partitions {@code [from, to)} of {@code info} and records them there (directories are
     * the caller's to create: the home dir's by {@link TopicFiles}, the others' by {@link #createOutsideHome}).
     *
     * @throws IllegalArgumentException when the topic's {@link LogDirs#PIN_CONFIG} names an unknown dir, or none takes it
     */
    synchronized Map<Integer, LogDir> place(TopicInfo info, int from, int to) {
        List<String> pinned = pool.pinned(info.config().otherConfigs().get(LogDirs.PIN_CONFIG));
        Map<Integer, LogDir> out = new java.util.TreeMap<>();
        for (int p = from; p < to; p++) {
            TopicPartition tp = new TopicPartition(info.name(), p);
            LogDir have = located.get(tp);
            if (have == null) {
                try {
                    have = rule.choose(online(), pinned, this::partitionsIn, this::bytesIn);
                } catch (IllegalStateException | IllegalArgumentException e) {
                    String offline = String.join(
                            ",",
                            failures.offlineDirs().keySet().stream()
                                    .map(LogDir::name)
                                    .toList());
                    throw new IllegalArgumentException(
                            "topic " + info.name() + ": " + e.getMessage()
                                    + (offline.isEmpty() ? "" : " (offline log dirs: " + offline + ")"),
                            e);
                }
                located.put(tp, have);
            }
            out.put(p, have);
        }
        return out;
    }

    /** Creates the placed partitions outside the home dir: the topic's directory there with copies of its id and config first. */
    void createOutsideHome(TopicInfo info, Map<Integer, LogDir> placed) throws IOException {
        for (Map.Entry<Integer, LogDir> e : placed.entrySet()) {
            LogDir d = e.getValue();
            if (d.equals(pool.home())) {
                continue;
            }
            Path topicDir = TopicDir.of(d.path(), info.name());
            if (!Files.isDirectory(topicDir)) {
                AtomicFile.createDirectories(topicDir);
            }
            if (!Files.exists(topicDir.resolve(TopicIdentity.FILE_NAME))) {
                StateJson.write(topicDir.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(info.topicId()));
                StateJson.write(topicDir.resolve(TopicConfig.FILE_NAME), info.config());
            }
            Path partition = TopicDir.partition(topicDir, e.getKey());
            if (!Files.isDirectory(partition)) {
                Files.createDirectory(partition);
            }
            AtomicFile.fsyncDirectory(topicDir);
        }
    }

    /** A log dir move committed: {@code tp} lives in {@code to} from now on. */
    void relocate(TopicPartition tp, LogDir to) {
        located.put(tp, to);
    }

    /** Before a partition of {@code info} is moved into {@code to}: the topic's directory there, with its id and config. */
    void prepareTopicDir(TopicInfo info, LogDir to) throws IOException {
        Path topicDir = TopicDir.of(to.path(), info.name());
        if (!Files.isDirectory(topicDir)) {
            AtomicFile.createDirectories(topicDir);
        }
        if (!to.equals(pool.home()) && !Files.exists(topicDir.resolve(TopicIdentity.FILE_NAME))) {
            StateJson.write(topicDir.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(info.topicId()));
            StateJson.write(topicDir.resolve(TopicConfig.FILE_NAME), info.config());
        }
    }

    /** A topic that was not created after all: its placements are void. */
    void forget(String topic) {
        located.keySet().removeIf(tp -> tp.topic().equals(topic));
    }

    /** Whether partition {@code p} of a topic being created or grown was placed in the home dir. */
    boolean inHome(Map<Integer, LogDir> placed, int p) {
        return placed.get(p).equals(pool.home());
    }

    /** After the home dir's config changed: the same in every copy. */
    void writeConfigCopies(String topic, TopicConfig config) {
        for (LogDir d : others()) {
            Path copy = TopicDir.of(d.path(), topic);
            // An offline dir's copy is brought in step by the load after the restart that brings it back.
            if (!failures.isOffline(d) && Files.isDirectory(copy)) {
                StateJson.write(copy.resolve(TopicConfig.FILE_NAME), config);
            }
        }
    }

    /**
     * Deletes the topic's directories outside the home dir, before the home one goes: each is renamed away
     * (one durable step), then removed. A crash in between leaves the topic known, with those partitions empty.
     */
    /**
     * Refuses to delete a topic with partitions in an offline dir: its files there could not be removed, and
     * would bring the topic back once the dir is.
     */
    void checkDeletable(TopicInfo info) {
        for (Map.Entry<TopicPartition, LogDir> e : located.entrySet()) {
            if (e.getKey().topic().equals(info.name()) && failures.isOffline(e.getValue())) {
                throw new StorageException(
                        StorageException.Kind.IO,
                        "topic " + info.name() + " cannot be deleted now: " + e.getKey() + " is in log dir "
                                + e.getValue().name() + ", which is offline; delete it once the dir is back");
            }
        }
    }

    void deleteOutsideHome(TopicInfo info) throws IOException {
        located.keySet().removeIf(tp -> tp.topic().equals(info.name()));
        List<Path> doomed = new ArrayList<>();
        for (LogDir d : others()) {
            Path dir = TopicDir.of(d.path(), info.name());
            if (Files.isDirectory(dir)) {
                Path gone = TopicDir.deleting(d.path(), info.name(), info.topicId());
                Files.move(dir, gone, StandardCopyOption.ATOMIC_MOVE);
                AtomicFile.fsyncDirectory(d.path());
                doomed.add(gone);
            }
        }
        for (Path gone : doomed) {
            TopicDir.deleteRecursively(gone);
        }
    }

    private long partitionsIn(LogDir d) {
        return located.values().stream().filter(d::equals).count();
    }

    private long bytesIn(LogDir d) {
        long sum = 0;
        for (Map.Entry<TopicPartition, LogDir> e : located.entrySet()) {
            if (e.getValue().equals(d)) {
                sum += sizes.applyAsLong(e.getKey());
            }
        }
        return sum;
    }

    /** The pool without its offline dirs (the home dir is never among those while the engine serves). */
    private LogDirs online() {
        List<LogDir> up =
                pool.dirs().stream().filter(d -> !failures.isOffline(d)).toList();
        if (up.isEmpty()) {
            throw new IllegalArgumentException("every log dir is offline");
        }
        return new LogDirs(up);
    }

    private List<LogDir> others() {
        return pool.dirs().subList(1, pool.dirs().size());
    }

    private static void finishDeletes(Path dir) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path d : ds) {
                if (TopicDir.isDeleting(d.getFileName().toString())) {
                    TopicDir.deleteRecursively(d);
                }
            }
        }
    }

    private static void checkSameTopic(String topic, Path homeTopic, Path copy) {
        UUID home = StateJson.read(homeTopic.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                .map(TopicIdentity::topicId)
                .orElse(null);
        UUID other = StateJson.read(copy.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                .map(TopicIdentity::topicId)
                .orElse(null);
        if (home != null && other != null && !home.equals(other)) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    "topic " + topic + " is two topics: " + homeTopic + " has id " + home + " and " + copy + " has id "
                            + other + "; keep one");
        }
    }

    private static void copyFile(Path fromDir, Path toDir, String name) throws IOException {
        Path from = fromDir.resolve(name);
        if (Files.isRegularFile(from)) {
            AtomicFile.write(toDir.resolve(name), Files.readAllBytes(from));
        }
    }
}
