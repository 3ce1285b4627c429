package io.kaas.storage.layout;

import java.nio.file.Path;
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
}
