package io.kaas.storage.layout;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One directory of a broker's volume pool ({@link LogDirs}, Apache's {@code log.dirs}, KIP-112): laid out as
 * a single data dir is ({@link TopicDir}), with its own {@code .lock} ({@link OwnerLock}).
 *
 * @param name     what a topic's {@link LogDirs#PIN_CONFIG} and the operator call it; its path when not given
 * @param path     where it is
 * @param eligible whether new partitions of unpinned topics may be placed here (a pin may still name it)
 * @param cordoned nothing new is placed here, pinned or not; what it holds stays and is served
 * @param labels   the operator's own tags (disk class, rack slot), reported, never interpreted
 */
public record LogDir(String name, Path path, boolean eligible, boolean cordoned, Map<String, String> labels) {
    public LogDir {
        Objects.requireNonNull(path, "path");
        if (name == null || name.isBlank()) {
            name = path.toString();
        }
        if (name.contains(",")) {
            throw new IllegalArgumentException("log dir name " + name + " must not contain ','");
        }
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** A plain directory of {@code log.dirs}: named by its path, eligible, not cordoned, no labels. */
    public static LogDir of(Path path) {
        return new LogDir(path.toString(), path, true, false, Map.of());
    }

    /** Whether a new partition may be placed here: pinned to it by name, or unpinned and {@link #eligible}; never when cordoned. */
    public boolean accepts(boolean pinnedHere) {
        return !cordoned && (pinnedHere || eligible);
    }
}
