package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import java.util.Optional;

/** One segment of a partition as its files name it: the {@code .log} and the {@code .index} beside it (which may be missing). */
public record SegmentFile(SegmentName name, Path log, Path index) {
    public long baseOffset() {
        return name.baseOffset();
    }

    /** The segment for a {@code .log} or {@code .index} path; empty when the name is not a segment name. */
    public static Optional<SegmentFile> of(Path file) {
        Path fileName = file.getFileName();
        if (fileName == null) {
            return Optional.empty();
        }
        return SegmentName.parse(fileName.toString())
                .map(n -> new SegmentFile(
                        n, file.resolveSibling(n.logFileName()), file.resolveSibling(n.indexFileName())));
    }

    /** The segment a {@code .log} or {@code .index} path names, or an IO error naming the file and the accepted names. */
    public static SegmentFile require(Path file) {
        return of(file).orElseThrow(() -> new StorageException(
                StorageException.Kind.IO,
                file + ": not a segment file ({epoch:08x}-{base:020d}.log/.index or {base:020d}.log/.index)"));
    }
}
