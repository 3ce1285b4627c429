package io.kaas.storage.layout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A broker's volume pool: Apache's {@code log.dirs} (KIP-112), one or more {@link LogDir}s. The first is the
 * <em>home</em> dir: it holds {@code __cluster/} ({@link ClusterDir}) and every topic's authoritative
 * {@code .topic-id.json} and {@code .config.json}; another dir holding partitions of a topic keeps copies of
 * both beside them ({@code <dir>/<topic>/<n>/}), so each dir reads on its own like a single data dir. A
 * partition lives where its directory is; one found in two dirs is refused.
 *
 * <p>Written as {@code DIR[,DIR...]} or as the JSON form
 * {@code [{"name":"a","path":"/d1","eligible":true,"cordoned":false,"labels":{"disk":"ssd"}},...]}.
 * Immutable.
 */
public record LogDirs(List<LogDir> dirs) {
    /**
     * The topic config that pins a topic's new partitions to named dirs ({@code dir-a,dir-b}): placement
     * chooses among those only. Apache has no such key (its placement is the controller's); kaas's own keys
     * are {@code kaas.*}.
     */
    public static final String PIN_CONFIG = "kaas.log.dirs";

    private static final ObjectMapper JSON = new ObjectMapper();

    public LogDirs {
        dirs = List.copyOf(dirs);
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("log.dirs needs at least one directory");
        }
        Set<String> names = new HashSet<>();
        List<Path> paths = new ArrayList<>();
        for (LogDir d : dirs) {
            if (!names.add(d.name())) {
                throw new IllegalArgumentException("log dir name " + d.name() + " is given twice");
            }
            Path p = d.path().toAbsolutePath().normalize();
            for (Path other : paths) {
                if (p.startsWith(other) || other.startsWith(p)) {
                    throw new IllegalArgumentException(
                            "log dirs " + other + " and " + p + " overlap: each must be a directory of its own");
                }
            }
            paths.add(p);
        }
    }

    /** Today's one data dir. */
    public static LogDirs single(Path dataDir) {
        return new LogDirs(List.of(LogDir.of(dataDir)));
    }

    /** {@code DIR[,DIR...]}, or the JSON form (text starting with {@code [}). */
    public static LogDirs parse(String text) {
        String t = text.trim();
        if (t.startsWith("[")) {
            return parseJson(t);
        }
        List<LogDir> out = new ArrayList<>();
        for (String part : t.split(",")) {
            if (!part.isBlank()) {
                out.add(LogDir.of(Path.of(part.trim())));
            }
        }
        return new LogDirs(out);
    }

    /** One entry of the JSON form; an unknown key is refused (Jackson's default). */
    record JsonDir(String name, String path, Boolean eligible, Boolean cordoned, Map<String, String> labels) {}

    private static LogDirs parseJson(String text) {
        JsonDir[] parsed;
        try {
            parsed = JSON.readValue(text, JsonDir[].class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("log.dirs is not valid JSON: " + e.getOriginalMessage(), e);
        }
        List<LogDir> out = new ArrayList<>();
        for (JsonDir d : Arrays.asList(parsed)) {
            if (d == null || d.path() == null || d.path().isBlank()) {
                throw new IllegalArgumentException("log.dirs: every entry needs a \"path\"");
            }
            out.add(new LogDir(
                    d.name(),
                    Path.of(d.path()),
                    d.eligible() == null || d.eligible(),
                    d.cordoned() != null && d.cordoned(),
                    d.labels()));
        }
        return new LogDirs(out);
    }

    /** The first dir: {@code __cluster/} and the topics' authoritative files. */
    public LogDir home() {
        return dirs.get(0);
    }

    public boolean isSingle() {
        return dirs.size() == 1;
    }

    public Optional<LogDir> named(String name) {
        return dirs.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /** The dir that holds {@code path} (a partition or topic dir), if any. */
    public Optional<LogDir> holding(Path path) {
        Path p = path.toAbsolutePath().normalize();
        return dirs.stream()
                .filter(d -> p.startsWith(d.path().toAbsolutePath().normalize()))
                .findFirst();
    }

    /** The dir names a topic's {@link #PIN_CONFIG} value names; empty when unpinned. Unknown names are refused. */
    public List<String> pinned(String pinValue) {
        if (pinValue == null || pinValue.isBlank()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String n : pinValue.split(",")) {
            String name = n.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (named(name).isEmpty()) {
                throw new IllegalArgumentException(PIN_CONFIG + " names " + name + ", which is not one of log.dirs ("
                        + String.join(",", dirs.stream().map(LogDir::name).toList()) + ")");
            }
            out.add(name);
        }
        return out;
    }
}
