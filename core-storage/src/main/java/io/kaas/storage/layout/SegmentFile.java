package io.kaas.storage.layout;

import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;

/** One segment of a partition as its files name it: the {@code .log} and the {@code .index} beside it (which may be missing). */
public record SegmentFile(SegmentName name, Path log, Path index) {
    public long baseOffset() {
        return name.baseOffset();
    }

    /** The segment for a {@code .log} or {@code .index} path; empty when the name is not a segment name. */
    public static java.util.Optional<SegmentFile> of(Path file) {
        Path fileName = file.getFileName();
        if (fileName == null) {
            return java.util.Optional.empty();
        }
        return SegmentName.parse(fileName.toString()).map(n -> new SegmentFile(n,
                file.resolveSibling(n.logFileName()), file.resolveSibling(n.indexFileName())));
    }
}
