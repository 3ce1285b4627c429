package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the partition directories under a path that may be a data dir ({@code <data>/<topic>/<p>/}),
 * a topic dir, a partition dir, or an Apache log dir ({@code <logdir>/<topic>-<p>/}). A directory is
 * a partition when it holds segments or a manifest ({@link PartitionSegments#isPartitionDir});
 * {@code __cluster} ({@link ClusterDir}) is never one.
 */
public final class PartitionFinder {
    private static final int MAX_DEPTH = 2;

    private PartitionFinder() {}

    /**
     * Partition dirs under {@code root}, sorted; throws naming the path when it does not exist, cannot be
     * listed, or holds no kaas or Kafka data at all ({@link #NO_DATA}): an offline command pointed at
     * {@code /etc} or a typo must say so, not report "0 partition(s)" and succeed. A data dir that is
     * kaas's but has no partition yet (only {@code __cluster}, or a topic dir with its config) is an empty list.
     */
    public static List<Path> find(Path root) {
        if (!Files.exists(root)) {
            throw new StorageException(StorageException.Kind.IO, root + ": no such file or directory");
        }
        if (!Files.isDirectory(root)) {
            throw new StorageException(StorageException.Kind.IO, root + ": not a directory");
        }
        List<Path> out = new ArrayList<>();
        walk(root, 0, out);
        if (out.isEmpty() && !holdsKaasOrKafkaState(root)) {
            throw new StorageException(StorageException.Kind.IO, root + ": " + NO_DATA);
        }
        out.sort(null);
        return out;
    }

    /** The words every offline command uses for a PATH with nothing of kaas's or Apache Kafka's under it. */
    public static final String NO_DATA = "no kaas or Kafka partition data found";

    /** Apache Kafka writes these at the top of every log dir it formatted or used. */
    private static final List<String> KAFKA_LOG_DIR_FILES = List.of(
            "meta.properties",
            "recovery-point-offset-checkpoint",
            "log-start-offset-checkpoint",
            "replication-offset-checkpoint",
            "cleaner-offset-checkpoint");

    /**
     * A data dir with its cluster state, a log dir of a pool a broker opened ({@code .lock}, see {@link LogDirs}), a
     * topic dir with its config, or an Apache log dir: data, though no partition.
     */
    private static boolean holdsKaasOrKafkaState(Path root) {
        if (Files.isDirectory(ClusterDir.of(root)) || Files.isRegularFile(root.resolve(OwnerLock.FILE_NAME))) {
            return true;
        }
        if (Files.isRegularFile(root.resolve(io.kaas.storage.format.TopicConfig.FILE_NAME))) {
            return true;
        }
        return KAFKA_LOG_DIR_FILES.stream().anyMatch(f -> Files.isRegularFile(root.resolve(f)));
    }

    /**
     * One partition's directory under a data dir: kaas's {@code <data>/<topic>/<p>/}, else Apache's
     * {@code <logdir>/<topic>-<p>/}; empty when neither is a directory.
     */
    public static Optional<Path> find(Path dataDir, String topic, int partition) {
        Path kaas = TopicDir.partition(dataDir, topic, partition);
        if (Files.isDirectory(kaas)) {
            return Optional.of(kaas);
        }
        Path apache = dataDir.resolve(topic + "-" + partition);
        return Files.isDirectory(apache) ? Optional.of(apache) : Optional.empty();
    }

    /**
     * One partition's directory in a broker's pool of log dirs ({@link LogDirs}): where it is found, as the broker
     * opens it; empty when in no dir.
     *
     * @throws StorageException of kind {@link StorageException.Kind#DAMAGED} when two dirs hold it, naming both (the
     *     broker refuses to open that too, see {@link PoolContents})
     */
    public static Optional<Path> findInPool(List<Path> dirs, String topic, int partition) {
        List<Path> found = new ArrayList<>();
        for (Path d : dirs) {
            find(d, topic, partition).ifPresent(found::add);
        }
        if (found.size() > 1) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    "partition " + topic + "-" + partition + " is in two log dirs: " + found.get(0) + " and "
                            + found.get(1));
        }
        return found.stream().findFirst();
    }

    private static void walk(Path dir, int depth, List<Path> out) {
        if (PartitionSegments.isPartitionDir(dir)) {
            out.add(dir);
            return;
        }
        if (depth >= MAX_DEPTH) {
            return;
        }
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, Files::isDirectory)) {
            stream.forEach(children::add);
        } catch (NoSuchFileException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": no such file or directory", e);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot list: " + PartitionSegments.describe(e), e);
        }
        for (Path child : children) {
            String name = child.getFileName().toString();
            // A log dir move's staging copy or old copy is not a partition (PartitionMove decides what becomes of it).
            if (!name.equals(ClusterDir.NAME) && !PartitionMove.isMoveLeftover(name)) {
                walk(child, depth + 1, out);
            }
        }
    }
}
