package io.kaas.storage.testfs;

import java.nio.file.Path;

/**
 * An inode of the {@link DurableImage}: identity survives renames, so a directory entry made durable
 * names the file (and its durable content), not whatever sits at that name later.
 * Guarded by the DurableImage lock, except file content (see {@link FileNode}).
 */
abstract class Node {
    /** Where the node is linked now; {@code parent == null} means unlinked (or a tracked root). */
    DirNode parent;

    String name;
    /** Set only on tracked roots: their delegate path. */
    Path rootPath;

    /** The node's delegate path now, or null if it is unlinked. */
    Path currentPath() {
        if (rootPath != null) {
            return rootPath;
        }
        if (parent == null) {
            return null;
        }
        Path parentPath = parent.currentPath();
        return parentPath == null ? null : parentPath.resolve(name);
    }
}
