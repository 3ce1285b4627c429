package io.kaas.recovery;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a failed offline pass left: the regular files of a partition directory (size, modification time,
 * file key) before the pass, compared with the directory after it, so a command that fails half-way can say
 * which files it already created, replaced or removed. Reads only; one snapshot per pass, one thread.
 */
final class DirectoryChanges {
    private record Stamp(long size, long modified, Object key) {}

    private final Path dir;
    private final Map<String, Stamp> before;

    private DirectoryChanges(Path dir, Map<String, Stamp> before) {
        this.dir = dir;
        this.before = before;
    }

    /** The files of {@code dir} now; an unreadable directory gives an empty snapshot. */
    static DirectoryChanges of(Path dir) {
        return new DirectoryChanges(dir, stamps(dir));
    }

    /** Each file created, changed or removed since the snapshot, as {@code PATH (created|changed|removed)}. */
    List<String> since() {
        Map<String, Stamp> now = stamps(dir);
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Stamp> e : now.entrySet()) {
            Stamp was = before.get(e.getKey());
            if (was == null) {
                out.add(dir.resolve(e.getKey()) + " (created)");
            } else if (!was.equals(e.getValue())) {
                out.add(dir.resolve(e.getKey()) + " (changed)");
            }
        }
        for (String name : before.keySet()) {
            if (!now.containsKey(name)) {
                out.add(dir.resolve(name) + " (removed)");
            }
        }
        return out;
    }

    /** {@code "; already changed: A (created), B (removed)"}, or {@code "; no file was changed"}. */
    String describe() {
        List<String> changed = since();
        return changed.isEmpty() ? "; no file was changed" : "; already changed: " + String.join(", ", changed);
    }

    private static Map<String, Stamp> stamps(Path dir) {
        Map<String, Stamp> out = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                if (a.isRegularFile()) {
                    out.put(
                            f.getFileName().toString(),
                            new Stamp(
                                    a.size(),
                                    a.lastModifiedTime().toMillis(),
                                    Objects.requireNonNullElse(a.fileKey(), "")));
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }
}
