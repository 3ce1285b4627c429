package io.kaas.inspect.data;

import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.layout.PartitionFinder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every partition under a path ({@link PartitionFinder}: a kaas data dir, topic or partition dir, or an Apache log
 * dir) as a {@link PartitionSummary}, in topic and partition order, with the consumer groups' committed offsets of
 * each (kaas's {@code __cluster/__consumer_offsets/<group>.json}, {@link GroupOffsetsFile}; an Apache log dir keeps
 * them in its {@code __consumer_offsets} topic, listed as a topic).
 */
public final class DataDirListing {
    private DataDirListing() {}

    /**
     * Hands each partition's summary to {@code sink}; returns how many.
     *
     * @throws StorageException IO when the path holds no partition (exit 3), or a file cannot be read
     */
    public static int list(Path path, Consumer<PartitionSummary> sink) {
        List<Path> dirs = PartitionFinder.find(path);
        if (dirs.isEmpty()) {
            throw new StorageException(
                    StorageException.Kind.IO, path + ": no partition found (" + PartitionFinder.NO_DATA + ")");
        }
        List<PartitionDir> partitions = dirs.stream()
                .map(PartitionDir::of)
                .sorted((a, b) -> {
                    int c = a.topic().compareTo(b.topic());
                    return c != 0 ? c : Integer.compare(a.partition(), b.partition());
                })
                .toList();
        Map<Path, ApacheCheckpoints> checkpoints = new HashMap<>();
        Map<Path, Map<String, Map<String, Long>>> committed = new HashMap<>();
        for (PartitionDir p : partitions) {
            ApacheCheckpoints apache =
                    p.apache() ? checkpoints.computeIfAbsent(p.root(), ApacheCheckpoints::read) : null;
            Map<String, Long> groups = p.apache()
                    ? Map.of()
                    : committed
                            .computeIfAbsent(p.root(), DataDirListing::committedOffsets)
                            .getOrDefault(p.label() + "\u0000" + p.topic(), Map.of());
            sink.accept(PartitionSummary.read(p, apache, groups));
        }
        return partitions.size();
    }

    /** By {@code topic-partition NUL topic} (topics may hold '-'), each group's committed offset, groups sorted. */
    private static Map<String, Map<String, Long>> committedOffsets(Path dataDir) {
        Map<String, Map<String, Long>> out = new HashMap<>();
        for (GroupOffsetsFile.GroupOffsets g :
                GroupOffsetsFile.readAll(ClusterDir.consumerOffsets(ClusterDir.of(dataDir)), x -> true)) {
            for (GroupOffsetsFile.Committed c : g.offsets()) {
                out.computeIfAbsent(c.topic() + "-" + c.partition() + "\u0000" + c.topic(), k -> new TreeMap<>())
                        .put(g.groupId(), c.offset());
            }
        }
        return out;
    }
}
