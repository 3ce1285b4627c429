package io.kaas.inspect.data;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.TopicDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * One partition directory and what its place says: kaas's {@code <data>/<topic>/<p>/} or Apache's
 * {@code <logdir>/<topic>-<p>/}, the topic and partition it holds, and the directory above its topics ({@code root}:
 * the data dir, or the Apache log dir, where the cluster state or the checkpoint files are).
 */
public record PartitionDir(Path path, String topic, int partition, boolean apache, Path root) {

    /** What the directory {@code dir} (one {@link PartitionFinder} found) is the partition of. */
    public static PartitionDir of(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        String name = abs.getFileName().toString();
        OptionalInt kaasIndex = TopicDir.partitionIndex(name);
        Path parent = abs.getParent();
        if (kaasIndex.isPresent() && parent != null && parent.getParent() != null) {
            return new PartitionDir(
                    abs, parent.getFileName().toString(), kaasIndex.getAsInt(), false, parent.getParent());
        }
        int dash = name.lastIndexOf('-');
        if (dash > 0 && dash < name.length() - 1) {
            OptionalInt apacheIndex = TopicDir.partitionIndex(name.substring(dash + 1));
            if (apacheIndex.isPresent() && parent != null) {
                return new PartitionDir(abs, name.substring(0, dash), apacheIndex.getAsInt(), true, parent);
            }
        }
        throw new StorageException(
                StorageException.Kind.IO, abs + ": not a partition directory (<topic>/<N> or <topic>-<N>)");
    }

    /** The partition {@code topic}/{@code partition} of the data dir or Apache log dir {@code dataDir}. */
    public static PartitionDir find(Path dataDir, String topic, int partition) {
        if (!Files.isDirectory(dataDir)) {
            throw new StorageException(StorageException.Kind.IO, dataDir + ": no such data directory");
        }
        return PartitionFinder.find(dataDir, topic, partition)
                .filter(p -> Files.exists(p.resolve(Manifest.FILE_NAME))
                        || io.kaas.storage.layout.PartitionSegments.isPartitionDir(p))
                .map(PartitionDir::of)
                .orElseThrow(() -> new StorageException(
                        StorageException.Kind.IO,
                        dataDir + ": no partition " + topic + "-" + partition + " (neither " + topic + "/" + partition
                                + "/ nor " + topic + "-" + partition + "/ holds segments)"));
    }

    /**
     * The partition in a broker's pool of log dirs: where its data is found, as the broker opens it; a partition
     * in no dir, or in two, is an error naming the dirs (the broker refuses to open the second case too).
     */
    public static PartitionDir findInPool(java.util.List<Path> dirs, String topic, int partition) {
        java.util.List<PartitionDir> found = new java.util.ArrayList<>();
        for (Path d : dirs) {
            try {
                found.add(find(d, topic, partition));
            } catch (StorageException notHere) {
                // the next dir may hold it
            }
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        throw new StorageException(
                StorageException.Kind.IO,
                found.isEmpty()
                        ? "no partition " + topic + "-" + partition + " in any of " + dirs
                        : "partition " + topic + "-" + partition + " is in two log dirs: "
                                + found.get(0).path() + " and " + found.get(1).path());
    }

    /** {@code topic-partition}, as kcat and Apache name a partition. */
    public String label() {
        return topic + "-" + partition;
    }
}
