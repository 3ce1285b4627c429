package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves a command's PATH argument to partitions and their segments: a data dir, topic dir or
 * partition dir means every segment under it; a {@code .log} or {@code .index} file means that one
 * segment (its partition is the file's directory, for the owner lock).
 */
public final class Targets {
    private Targets() {}

    /** Segments to work on, grouped by partition dir, in order. */
    public static Map<Path, List<SegmentFile>> segments(Path path) {
        Map<Path, List<SegmentFile>> out = new LinkedHashMap<>();
        if (Files.isRegularFile(path)) {
            SegmentFile segment = SegmentFile.require(path);
            if (!Files.isRegularFile(segment.log())) {
                throw new StorageException(StorageException.Kind.IO, segment.log() + ": no such file");
            }
            out.put(path.toAbsolutePath().getParent(), new ArrayList<>(List.of(segment)));
            return out;
        }
        for (Path partition : PartitionFinder.find(path)) {
            out.put(partition, PartitionSegments.list(partition));
        }
        return out;
    }
}
