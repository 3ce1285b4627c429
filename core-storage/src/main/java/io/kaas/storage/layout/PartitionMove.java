package io.kaas.storage.layout;

import io.kaas.storage.format.MoveSource;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a partition moves from one log dir of a pool to another (AlterReplicaLogDirs, KIP-113), atomically across a
 * crash, and the one rule that reads a move's state back from the dirs (the broker's start and the offline tools):
 * <ol>
 *   <li>the copy is made in {@code <target>/<topic>/<n>.future/} (Apache's "future replica"), each file fsynced;
 *   <li>{@code move-source.json} ({@link MoveSource}) naming the source dir is written into it, the staging dir
 *       fsynced;
 *   <li><b>commit</b>: {@code <n>.future} is renamed to {@code <n>} and the topic dir fsynced;
 *   <li>the source's {@code <topic>/<n>/} is renamed to {@code <n>.moved} (its topic dir fsynced) and removed;
 *   <li>{@code move-source.json} is removed.
 * </ol>
 * So: a {@code <n>.future} dir is an uncommitted copy, rolled back (removed); a {@code <n>.moved} dir is an old copy
 * whose removal a crash interrupted, removed; a partition dir holding {@code move-source.json} is the copy, and the
 * same partition in the dir it names is the old one, removed. A partition in two dirs with no such mark between
 * them is a real duplicate, refused ({@link PoolContents#scan}). Neither staging name is a partition index, so
 * neither is ever opened or listed as a partition.
 */
public final class PartitionMove {
    public static final String FUTURE_SUFFIX = ".future";
    public static final String MOVED_SUFFIX = ".moved";
    private static final Pattern LEFTOVER = Pattern.compile("[0-9]+(\\.future|\\.moved)");

    private PartitionMove() {}

    /** Where the copy of {@code topic}'s partition {@code n} is made in log dir {@code target}. */
    public static Path future(Path target, String topic, int n) {
        return TopicDir.of(target, topic).resolve(n + FUTURE_SUFFIX);
    }

    /** Where the old copy goes, in log dir {@code source}, to be removed. */
    public static Path moved(Path source, String topic, int n) {
        return TopicDir.of(source, topic).resolve(n + MOVED_SUFFIX);
    }

    /** True for a directory under a topic dir that is a move's staging copy or an old copy being removed. */
    public static boolean isMoveLeftover(String dirName) {
        return LEFTOVER.matcher(dirName).matches();
    }

    /** The log dir a committed move copied {@code partitionDir} from, when it holds the mark. */
    public static Optional<Path> movedFrom(Path partitionDir) {
        return StateJson.read(partitionDir.resolve(MoveSource.FILE_NAME), MoveSource.class)
                .map(m -> partitionDir.getFileSystem().getPath(m.from()));
    }

    /** Steps 2 and 3: the staging copy is complete and fsynced (its files; the caller's step 1). */
    public static Path commit(Path source, Path target, String topic, int n) throws IOException {
        Path staging = future(target, topic, n);
        StateJson.write(
                staging.resolve(MoveSource.FILE_NAME),
                new MoveSource(
                        MoveSource.VERSION, source.toAbsolutePath().normalize().toString()));
        AtomicFile.fsyncDirectory(staging);
        Path partition = TopicDir.partition(target, topic, n);
        Files.move(staging, partition, StandardCopyOption.ATOMIC_MOVE);
        AtomicFile.fsyncDirectory(TopicDir.of(target, topic));
        return partition;
    }

    /** Steps 4 and 5, after the commit: the old copy goes, then the mark. Idempotent. */
    public static void removeSource(Path source, Path target, String topic, int n) throws IOException {
        Path old = TopicDir.partition(source, topic, n);
        Path moved = moved(source, topic, n);
        if (Files.isDirectory(old)) {
            Files.move(old, moved, StandardCopyOption.ATOMIC_MOVE);
            AtomicFile.fsyncDirectory(TopicDir.of(source, topic));
        }
        if (Files.isDirectory(moved)) {
            TopicDir.deleteRecursively(moved);
            AtomicFile.fsyncDirectory(TopicDir.of(source, topic));
        }
        Path partition = TopicDir.partition(target, topic, n);
        if (Files.deleteIfExists(partition.resolve(MoveSource.FILE_NAME))) {
            AtomicFile.fsyncDirectory(partition);
        }
    }

    /** An uncommitted copy is abandoned: removed. */
    public static void rollBack(Path target, String topic, int n) throws IOException {
        Path staging = future(target, topic, n);
        if (Files.isDirectory(staging)) {
            TopicDir.deleteRecursively(staging);
            AtomicFile.fsyncDirectory(TopicDir.of(target, topic));
        }
    }

    /**
     * Finishes or rolls back every move a crash interrupted in {@code pool}, before anything reads where partitions
     * are; with {@code dryRun}, only says what it would do.
     *
     * @return one line per action taken (or due)
     */
    public static List<String> resolve(LogDirs pool, boolean dryRun) {
        List<String> actions = new ArrayList<>();
        try {
            for (FoundTopicDir found : FoundTopicDir.in(pool)) {
                resolveTopic(pool, found, dryRun, actions);
            }
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, "cannot finish an interrupted log dir move: " + e.getMessage(), e);
        }
        return actions;
    }

    private static void resolveTopic(LogDirs pool, FoundTopicDir found, boolean dryRun, List<String> actions)
            throws IOException {
        LogDir dir = found.dir();
        String topic = found.topic();
        Path topicDir = found.path();
        for (Path child : found.children()) {
            String name = child.getFileName().toString();
            if (name.endsWith(FUTURE_SUFFIX) && isMoveLeftover(name)) {
                actions.add(child + ": " + (dryRun ? "would remove" : "removed")
                        + " the copy of a log dir move that did not commit (the partition stays where it was)");
                if (!dryRun) {
                    TopicDir.deleteRecursively(child);
                    AtomicFile.fsyncDirectory(topicDir);
                }
            } else if (name.endsWith(MOVED_SUFFIX) && isMoveLeftover(name)) {
                actions.add(
                        child + ": " + (dryRun ? "would remove" : "removed") + " the old copy of a moved partition");
                if (!dryRun) {
                    TopicDir.deleteRecursively(child);
                    AtomicFile.fsyncDirectory(topicDir);
                }
            } else if (TopicDir.partitionIndex(name).isPresent()) {
                Optional<Path> from = movedFrom(child);
                if (from.isEmpty()) {
                    continue;
                }
                int n = Integer.parseInt(name);
                Optional<LogDir> source = pool.holding(from.get().resolve(topic));
                Path old = TopicDir.partition(from.get(), topic, n);
                if (source.isPresent() && !source.get().equals(dir) && Files.isDirectory(old)) {
                    actions.add(old + ": " + (dryRun ? "would remove" : "removed") + " the old copy of " + topic + "-"
                            + n + ", moved to " + dir.path());
                }
                if (dryRun) {
                    continue;
                }
                if (source.isPresent() && !source.get().equals(dir)) {
                    removeSource(source.get().path(), dir.path(), topic, n);
                } else if (Files.deleteIfExists(child.resolve(MoveSource.FILE_NAME))) {
                    // The dir it came from is not in the pool (any more): nothing of it to remove here.
                    AtomicFile.fsyncDirectory(child);
                }
            }
        }
    }
}
