package io.kaas.storage.layout;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Where a topic lives: {@code <data>/<topic>/} holding {@code .topic-id.json}, {@code .config.json} and
 * one directory per partition, named by its index ({@code <data>/<topic>/<n>/}). A deleted topic is
 * first renamed to {@code <data>/.<topic>-<id>.deleting} (one atomic step), then removed.
 */
public final class TopicDir {
    private static final String DELETING_SUFFIX = ".deleting";
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
        return PARTITION_INDEX.matcher(dirName).matches() ? OptionalInt.of(Integer.parseInt(dirName)) : OptionalInt.empty();
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
