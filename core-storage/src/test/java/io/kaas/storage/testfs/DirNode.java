package io.kaas.storage.testfs;

import java.util.Map;
import java.util.TreeMap;

/**
 * A directory: its entries now, and its entries as of the last directory fsync. Sorted maps so a
 * seeded power cut replays the same way. Guarded by the DurableImage lock.
 */
final class DirNode extends Node {
    final Map<String, Node> entries = new TreeMap<>();
    Map<String, Node> durableEntries = new TreeMap<>();

    void link(String childName, Node child) {
        Node replaced = entries.put(childName, child);
        if (replaced != null && replaced != child) {
            replaced.parent = null;
        }
        child.parent = this;
        child.name = childName;
    }

    void unlink(String childName) {
        Node removed = entries.remove(childName);
        if (removed != null) {
            removed.parent = null;
        }
    }

    void sync() {
        durableEntries = new TreeMap<>(entries);
    }
}
