package io.kaas.storage.layout;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Where a topic lives: {@code <data>/<topic>/} holding {@code .topic-id.json}, {@code .config.json} and
 * one directory per partition, named by its index ({@code <data>/<topic>/<n>/}). A deleted topic is
 * first renamed to {@code <data>/.<topic>-<id>.deleting} (one atomic step), then removed.
 */
public final class TopicDir {
    private static final String DELETING_SUFFIX = ".deleting";
    /**
     * Several brokers over one directory: a topic whose directory holds this file is being deleted. No broker
     * opens, publishes or recreates it; its directory goes once no broker holds a partition of it.
     */
    public static final String DELETED_MARKER = ".deleted";

    private static final Pattern PARTITION_INDEX = Pattern.compile("[0-9]+");

    private TopicDir() {}

    public static Path of(Path dataDir, String topic) {
        return dataDir.resolve(topic);
    }

    public static Path partition(Path dataDir, String topic, int partition) {
        return partition(of(dataDir, topic), partition);
    }

    public static Path partition(Path topicDir, int partition) {
        return topicDir.resolve(Integer.toString(partition));
    }

    /** The partition index a directory name under a topic dir stands for; empty when it is not one. */
    public static OptionalInt partitionIndex(String dirName) {
        return PARTITION_INDEX.matcher(dirName).matches()
                ? OptionalInt.of(Integer.parseInt(dirName))
                : OptionalInt.empty();
    }

    /** True when a directory directly under the data dir is a topic (not {@code __cluster}, not being deleted). */
    public static boolean isTopic(String dirName) {
        return TopicName.isLegal(dirName);
    }

    /** Where a topic is moved to be deleted: hidden from the topic scan by its leading dot. */
    public static Path deleting(Path dataDir, String topic, UUID topicId) {
        return dataDir.resolve("." + topic + "-" + topicId + DELETING_SUFFIX);
    }

    /** True for a directory a delete was interrupted in (finish it). */
    public static boolean isDeleting(String dirName) {
        return dirName.startsWith(".") && dirName.endsWith(DELETING_SUFFIX);
    }

    /** True when the topic in {@code topicDir} is marked deleted ({@link #DELETED_MARKER}). */
    public static boolean isMarkedDeleted(Path topicDir) {
        return Files.exists(topicDir.resolve(DELETED_MARKER));
    }

    /** Topics of {@code dataDir} marked deleted whose directory is still there, with their partition counts. */
    public static Map<String, Integer> markedDeleted(Path dataDir) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir, Files::isDirectory)) {
            for (Path d : ds) {
                String name = d.getFileName().toString();
                if (isTopic(name) && isMarkedDeleted(d)) {
                    out.put(name, partitionCount(d));
                }
            }
        }
        return out;
    }

    /**
     * Removes a topic marked deleted: renamed away in one durable step, then deleted. A no-op when it is not
     * there or not marked (another broker removed it first: of two brokers racing, one rename wins).
     */
    public static void removeMarkedDeleted(Path dataDir, String topic) throws IOException {
        Path dir = of(dataDir, topic);
        if (!isMarkedDeleted(dir)) {
            return;
        }
        UUID id = StateJson.read(dir.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                .map(TopicIdentity::topicId)
                .orElse(new UUID(0, 0));
        Path doomed = deleting(dataDir, topic, id);
        try {
            Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException | FileAlreadyExistsException e) {
            return;
        }
        AtomicFile.fsyncDirectory(dataDir);
        deleteRecursively(doomed);
    }

    /** Partitions a topic directory holds: one more than the highest partition directory's index. */
    public static int partitionCount(Path topicDir) throws IOException {
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(topicDir, Files::isDirectory)) {
            for (Path p : ds) {
                OptionalInt index = partitionIndex(p.getFileName().toString());
                if (index.isPresent()) {
                    n = Math.max(n, index.getAsInt() + 1);
                }
            }
        }
        return n;
    }

    /** Removes a (renamed-away) topic directory and everything under it. */
    public static void deleteRecursively(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
