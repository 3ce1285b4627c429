package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * What the dirs of a {@link LogDirs} pool hold, as found on disk: each topic's partition directories and the
 * dir each is in, and which dirs hold a directory of each topic. Where a partition's directory is found is
 * where it lives; found in two dirs, it is refused here, naming both, before anything opens, unless one copy is a
 * committed move's and the other its old copy not yet removed ({@link PartitionMove}): then it lives in the first.
 * Immutable.
 *
 * @param partitions topic → partition index → the dir holding {@code <dir>/<topic>/<n>/}
 * @param topicDirs  topic → the dirs holding {@code <dir>/<topic>/}, in pool order
 */
public record PoolContents(Map<String, Map<Integer, LogDir>> partitions, Map<String, List<LogDir>> topicDirs) {

    /**
     * Scans every dir of {@code pool}: topics are the directories with legal topic names ({@link TopicDir#isTopic};
     * never {@code __cluster}, a hidden one, or one being deleted).
     *
     * @throws StorageException of kind {@link StorageException.Kind#DAMAGED} when a partition is in two dirs
     */
    public static PoolContents scan(LogDirs pool) throws IOException {
        Map<String, Map<Integer, LogDir>> partitions = new TreeMap<>();
        Map<String, Map<Integer, Path>> where = new TreeMap<>();
        Map<String, List<LogDir>> topicDirs = new TreeMap<>();
        for (FoundTopicDir found : FoundTopicDir.in(pool)) {
            String topic = found.topic();
            LogDir dir = found.dir();
            topicDirs.computeIfAbsent(topic, t -> new ArrayList<>()).add(dir);
            for (Path partitionDir : found.children()) {
                OptionalInt index =
                        TopicDir.partitionIndex(partitionDir.getFileName().toString());
                if (index.isEmpty()) {
                    continue;
                }
                Path before =
                        where.computeIfAbsent(topic, t -> new TreeMap<>()).putIfAbsent(index.getAsInt(), partitionDir);
                if (before != null) {
                    LogDir beforeDir = partitions.get(topic).get(index.getAsInt());
                    if (movedHere(partitionDir, beforeDir)) {
                        where.get(topic).put(index.getAsInt(), partitionDir); // a move's copy wins over its old one
                    } else if (movedHere(before, dir)) {
                        continue;
                    } else {
                        throw new StorageException(
                                StorageException.Kind.DAMAGED,
                                "partition " + topic + "-" + index.getAsInt() + " is in two log dirs: " + before
                                        + " and " + partitionDir
                                        + "; a partition lives in one: keep the right copy, move the other away");
                    }
                }
                partitions.computeIfAbsent(topic, t -> new TreeMap<>()).put(index.getAsInt(), dir);
            }
        }
        return new PoolContents(partitions, topicDirs);
    }

    /** Whether {@code partitionDir} is a committed move's copy of the partition whose old copy is in {@code other}. */
    private static boolean movedHere(Path partitionDir, LogDir other) {
        return PartitionMove.movedFrom(partitionDir)
                .map(from -> from.toAbsolutePath()
                        .normalize()
                        .equals(other.path().toAbsolutePath().normalize()))
                .orElse(false);
    }

    /** The dir holding {@code topic}'s partition {@code index}, or null when none does. */
    public LogDir dirOf(String topic, int index) {
        Map<Integer, LogDir> of = partitions.get(topic);
        return of == null ? null : of.get(index);
    }
}
