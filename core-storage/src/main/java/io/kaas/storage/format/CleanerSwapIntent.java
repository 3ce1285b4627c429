package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * {@code <partition>/cleaner-swap.json}: the commit point of one cleaner swap. Written (atomically)
 * once the cleaned segment's {@code <segment>.cleaned} and {@code <index>.cleaned} files are complete
 * and fsynced; from then on the swap is finished by whoever finds the file (the cleaner itself, or
 * recovery after a crash): each {@code .cleaned} file still present is renamed over its final name,
 * every file in {@code replaced} that is not a final name of the new segment is unlinked, and this
 * file is removed last. Without this file, {@code .cleaned} files are an unfinished pass: removed.
 *
 * @param segment  the cleaned segment's {@code .log} file name (the first replaced segment's name)
 * @param replaced the {@code .log} file names of every segment the cleaned one replaces, oldest first
 */
@JsonPropertyOrder({"version", "segment", "replaced"})
public record CleanerSwapIntent(int version, String segment, List<String> replaced) {
    public static final String FILE_NAME = "cleaner-swap.json";
    public static final int VERSION = 1;

    public CleanerSwapIntent {
        replaced = List.copyOf(replaced);
    }
}
