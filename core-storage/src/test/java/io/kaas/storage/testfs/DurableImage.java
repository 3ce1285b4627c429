package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * What survives a power cut, for the directories a {@link FaultyFileSystem} tracks. A POSIX model
 * with strict fsync discipline (what ext4 and xfs promise, not the extra ext4 often gives):
 * <ul>
 *   <li>a file's content is durable as of its last {@code force()} (of any channel on it);</li>
 *   <li>a directory's entries (creates, renames, unlinks, in it) are durable as of its last fsync
 *       ({@code FileChannel.open(dir, READ).force(true)}); until then the old entries stand;</li>
 *   <li>entries name inodes, so a rename made durable carries the renamed file's durable content,
 *       and a file fsynced but never linked durably is lost.</li>
 * </ul>
 * Namespace operations hold this object's lock; file content has its own lock ({@link FileNode}).
 * Lock order: image, then file. Every mutation of a tracked directory must go through the wrapper.
 */
final class DurableImage {
    private final List<DirNode> roots = new ArrayList<>();

    /** Builds an image of {@code rootDirs} in which everything there now is durable. */
    static DurableImage scan(List<Path> rootDirs) throws IOException {
        DurableImage image = new DurableImage();
        for (Path rootDir : rootDirs) {
            DirNode root = scanDirectory(rootDir);
            root.rootPath = rootDir.toAbsolutePath().normalize();
            image.roots.add(root);
        }
        return image;
    }

    private static DirNode scanDirectory(Path dir) throws IOException {
        DirNode node = new DirNode();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                String name = child.getFileName().toString();
                if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                    node.link(name, scanDirectory(child));
                } else {
                    node.link(name, FileNode.existing());
                }
            }
        }
        node.sync();
        return node;
    }

    /** A file channel opened through the image, with the node to record its writes (null if untracked). */
    record OpenedFile(FileNode node, FileChannel channel) {}

    interface Opener {
        FileChannel open() throws IOException;
    }

    interface Action {
        void run() throws IOException;
    }

    synchronized OpenedFile open(Path path, Set<? extends OpenOption> options, Opener opener) throws IOException {
        path = path.toAbsolutePath().normalize();
        boolean writable = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
        Node before = lookup(path);
        if (before instanceof FileNode file && writable) {
            file.materialize(path); // the old content is what stays durable until an fsync
        }
        FileChannel channel = opener.open();
        try {
            if (before instanceof FileNode file) {
                if (writable && options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
                    file.recordTruncate(0);
                }
                return new OpenedFile(file, channel);
            }
            if (before == null && lookup(path.getParent()) instanceof DirNode parent) {
                FileNode created = FileNode.created();
                parent.link(path.getFileName().toString(), created);
                return new OpenedFile(created, channel);
            }
            return new OpenedFile(null, channel);
        } catch (RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    synchronized DirNode directory(Path path) {
        return lookup(path) instanceof DirNode dir ? dir : null;
    }

    synchronized void createDirectory(Path path, Action create) throws IOException {
        path = path.toAbsolutePath().normalize();
        create.run();
        if (lookup(path.getParent()) instanceof DirNode parent) {
            parent.link(path.getFileName().toString(), new DirNode());
        }
    }

    synchronized void delete(Path path, Action delete) throws IOException {
        path = path.toAbsolutePath().normalize();
        Node node = lookup(path);
        if (node instanceof FileNode file) {
            file.materialize(path); // an undone unlink brings this content back
        }
        delete.run();
        if (node != null && node.parent != null) {
            node.parent.unlink(node.name);
        }
    }

    synchronized void move(Path source, Path target, Action move) throws IOException {
        source = source.toAbsolutePath().normalize();
        target = target.toAbsolutePath().normalize();
        Node moved = lookup(source);
        Node replaced = lookup(target);
        if (replaced instanceof FileNode file) {
            file.materialize(target);
        }
        move.run();
        if (moved != null && moved.parent != null) {
            moved.parent.unlink(moved.name);
        }
        if (lookup(target.getParent()) instanceof DirNode parent) {
            String name = target.getFileName().toString();
            if (moved == null) {
                // Moved in from outside the tracked tree: nothing of it is durable here yet.
                moved = Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)
                        ? scanDirectory(target)
                        : FileNode.created();
            }
            parent.link(name, moved);
        }
    }

    synchronized void syncDirectory(DirNode dir) {
        dir.sync();
    }

    /**
     * The tracked trees as a power cut leaves them. Reads everything it needs before returning, so
     * the delegate can then be rewritten freely.
     */
    synchronized Map<Path, DirPlan> planPowerCut(TornTail tail, Random random) throws IOException {
        Map<Path, DirPlan> plans = new LinkedHashMap<>();
        Map<Node, Boolean> seen = new IdentityHashMap<>();
        for (DirNode root : roots) {
            plans.put(root.rootPath, plan(root, root.rootPath, tail, random, seen));
        }
        return plans;
    }

    sealed interface Entry permits DirPlan, FilePlan {}

    record DirPlan(Map<String, Entry> children) implements Entry {}

    /** {@code content == null}: the delegate already holds this file at this place; leave it be. */
    record FilePlan(byte[] content, FileTime modified) implements Entry {}

    private static DirPlan plan(DirNode dir, Path location, TornTail tail, Random random, Map<Node, Boolean> seen)
            throws IOException {
        seen.put(dir, Boolean.TRUE);
        Map<String, Entry> children = new TreeMap<>();
        for (Map.Entry<String, Node> e : dir.durableEntries.entrySet()) {
            Node child = e.getValue();
            Path childLocation = location.resolve(e.getKey());
            if (child instanceof FileNode file) {
                // A file durable under two names (a rename made durable in the target directory
                // but not yet in the source) shows up under both, as it can on disk.
                children.put(
                        e.getKey(),
                        file.unchangedAt(childLocation)
                                ? new FilePlan(null, null)
                                : new FilePlan(file.contentAfterCut(tail, random), file.modifiedTimeAfterCut()));
            } else if (child instanceof DirNode sub && !seen.containsKey(sub)) {
                children.put(e.getKey(), plan(sub, childLocation, tail, random, seen));
            }
        }
        return new DirPlan(children);
    }

    /** Rewrites {@code dir} on the delegate so it holds exactly {@code plan}. */
    static void restore(Path dir, DirPlan plan) throws IOException {
        List<Path> existing = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            children.forEach(existing::add);
        }
        for (Path child : existing) {
            if (!plan.children().containsKey(child.getFileName().toString())) {
                deleteTree(child);
            }
        }
        for (Map.Entry<String, Entry> e : plan.children().entrySet()) {
            Path child = dir.resolve(e.getKey());
            boolean isDir = Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS);
            if (e.getValue() instanceof DirPlan sub) {
                if (!isDir) {
                    Files.deleteIfExists(child);
                    Files.createDirectory(child);
                }
                restore(child, sub);
            } else if (e.getValue() instanceof FilePlan file && file.content() != null) {
                if (isDir) {
                    deleteTree(child);
                }
                Files.write(child, file.content());
                if (file.modified() != null) {
                    Files.setLastModifiedTime(child, file.modified());
                }
            }
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            List<Path> children = new ArrayList<>();
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(path)) {
                stream.forEach(children::add);
            }
            for (Path child : children) {
                deleteTree(child);
            }
        }
        Files.delete(path);
    }

    /** The node at a delegate path, or null if the path is outside the tracked trees or absent. */
    private Node lookup(Path path) {
        if (path == null) {
            return null;
        }
        Path absolute = path.toAbsolutePath().normalize();
        for (DirNode root : roots) {
            if (absolute.startsWith(root.rootPath)) {
                Path relative = root.rootPath.relativize(absolute);
                Node node = root;
                for (int i = 0; i < relative.getNameCount() && node != null; i++) {
                    String name = relative.getName(i).toString();
                    if (name.isEmpty()) {
                        continue; // relativize of a path to itself yields one empty name
                    }
                    node = node instanceof DirNode d ? d.entries.get(name) : null;
                }
                return node;
            }
        }
        return null;
    }
}
