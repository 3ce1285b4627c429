package io.kaas.cli.damage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Copies, reads and deletes the small directory trees the campaign works on. */
final class Trees {
    /** Held by whoever has the partition open; not part of the data. */
    private static final String LOCK = ".lock";

    private Trees() {}

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals(LOCK)) {
                    Files.copy(p, target);
                }
            }
        }
    }

    /**
     * Every file of a partition dir and its topic dir, relative to the partition dir (so the topic's own
     * files read {@code ../name}), but not lock files.
     */
    static Map<String, byte[]> snapshot(Path partition) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        Path topic = partition.getParent();
        try (Stream<Path> s = Files.walk(topic)) {
            for (Path p : s.toList()) {
                if (Files.isRegularFile(p) && !p.getFileName().toString().equals(LOCK)) {
                    out.put(partition.relativize(p).toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }

    static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
