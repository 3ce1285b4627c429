package io.kaas.broker.group;

import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.GroupOffsetsFile.Committed;
import io.kaas.storage.format.GroupOffsetsFile.GroupOffsets;
import io.kaas.storage.format.GroupOffsetsFile.PendingOffsets;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Committed offsets, one file per group ({@link GroupOffsetsFile}: {@code <data>/__cluster/__consumer_offsets/<group>.json}),
 * replaced atomically (tmp + fsync + rename + dir fsync) on every commit, so an acknowledged commit
 * survives a crash. Loaded whole at start. Group ids become file names by percent-encoding every byte
 * outside {@code [A-Za-z0-9._-]} (and a leading '.'), so any group id maps to one safe name and back.
 *
 * <p>The same file keeps the group's <b>pending transactional offsets</b> (TxnOffsetCommit), per producer id,
 * as Apache's group coordinator keeps them: written before the TxnOffsetCommit is answered, so the coordinator
 * that loads the group next (a restart, or another broker over the same directory) still has them; moved into
 * the committed offsets, or dropped, by the transaction's marker ({@link #completePending}) in one atomic write.
 *
 * <p>Thread-safe: each group's read-modify-write of its file happens under that group's lock here (callers may
 * hold the group's monitor around it), so files are written in change order.
 */
public final class OffsetStore {
    /** A group's state in memory, immutable: committed offsets and pending ones by producer id. */
    private record State(Map<PartitionKey, Committed> committed, Map<Long, PendingOffsets> pending) {
        static final State EMPTY = new State(Map.of(), Map.of());
    }

    private final Path dir;
    private final Map<String, State> byGroup = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    public record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {
        @Override
        public int compareTo(PartitionKey o) {
            int c = topic.compareTo(o.topic);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }

    public OffsetStore(Path clusterDir) {
        this.dir = ClusterDir.consumerOffsets(clusterDir);
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot load committed offsets: " + e.getMessage(), e);
        }
        byGroup.putAll(readAll());
    }

    /**
     * Re-reads the files of the groups {@code which} selects: with several brokers over one shared directory, the
     * broker that becomes the coordinator of some groups (a slot) takes over what its predecessor wrote, committed and
     * pending. Called when no write of those groups reaches this broker (it did not coordinate them until now).
     */
    public void reload(java.util.function.Predicate<String> which) {
        Map<String, State> now = readAll(which);
        byGroup.keySet().removeIf(g -> which.test(g) && !now.containsKey(g));
        byGroup.putAll(now);
    }

    private Map<String, State> readAll() {
        return readAll(g -> true);
    }

    /**
     * The files of the groups {@code which} selects. A file is parsed only when its name ({@link GroupOffsetsFile#groupOf}) says it may
     * be one of them: a broker gaining one coordinator slot of fifty reads a fiftieth of the files, not all of them.
     */
    private Map<String, State> readAll(java.util.function.Predicate<String> which) {
        Map<String, State> out = new java.util.HashMap<>();
        for (GroupOffsets g : GroupOffsetsFile.readAll(dir, which)) {
            Map<PartitionKey, Committed> m = new TreeMap<>();
            for (Committed c : g.offsets()) {
                m.put(new PartitionKey(c.topic(), c.partition()), c);
            }
            Map<Long, PendingOffsets> pending = new TreeMap<>();
            for (PendingOffsets p : g.pending()) {
                pending.put(p.producerId(), p);
            }
            out.put(g.groupId(), new State(m, pending));
        }
        return out;
    }

    /** Groups with a file: committed offsets, pending transactional ones, or both. */
    public Set<String> groups() {
        return byGroup.keySet();
    }

    public Map<PartitionKey, Committed> offsets(String group) {
        return byGroup.getOrDefault(group, State.EMPTY).committed();
    }

    private Object lock(String group) {
        return locks.computeIfAbsent(group, g -> new Object());
    }

    private State state(String group) {
        return byGroup.getOrDefault(group, State.EMPTY);
    }

    /** Stores and durably writes {@code commits}. */
    public void commit(String group, List<Committed> commits) {
        synchronized (lock(group)) {
            Map<PartitionKey, Committed> next = new TreeMap<>(offsets(group));
            put(next, commits);
            write(group, new State(next, state(group).pending()));
        }
    }

    private static void put(Map<PartitionKey, Committed> into, List<Committed> commits) {
        for (Committed c : commits) {
            into.put(new PartitionKey(c.topic(), c.partition()), c);
        }
    }

    /** Removes the given partitions' offsets (OffsetDelete). */
    public void delete(String group, List<PartitionKey> partitions) {
        synchronized (lock(group)) {
            Map<PartitionKey, Committed> next = new TreeMap<>(offsets(group));
            partitions.forEach(next::remove);
            write(group, new State(next, state(group).pending()));
        }
    }

    /**
     * Durably stages {@code commits} as {@code producerId}'s pending offsets (TxnOffsetCommit), replacing what it
     * staged before for the same partitions.
     */
    public void stagePending(String group, long producerId, short producerEpoch, List<Committed> commits) {
        synchronized (lock(group)) {
            State cur = state(group);
            Map<PartitionKey, Committed> staged = new TreeMap<>();
            PendingOffsets before = cur.pending().get(producerId);
            if (before != null) {
                put(staged, before.offsets());
            }
            put(staged, commits);
            Map<Long, PendingOffsets> pending = new TreeMap<>(cur.pending());
            pending.put(producerId, new PendingOffsets(producerId, producerEpoch, new ArrayList<>(staged.values())));
            write(group, new State(cur.committed(), pending));
        }
    }

    /**
     * The transaction of {@code producerId} ended: its pending offsets become committed ({@code commit}) or are
     * dropped, in one durable write. False when it had none here (a marker retried, or a transaction without this
     * group): nothing is written.
     */
    public boolean completePending(String group, long producerId, boolean commit) {
        synchronized (lock(group)) {
            State cur = state(group);
            PendingOffsets p = cur.pending().get(producerId);
            if (p == null) {
                return false;
            }
            Map<Long, PendingOffsets> pending = new TreeMap<>(cur.pending());
            pending.remove(producerId);
            Map<PartitionKey, Committed> committed = cur.committed();
            if (commit) {
                committed = new TreeMap<>(committed);
                put(committed, p.offsets());
            }
            write(group, new State(committed, pending));
            return true;
        }
    }

    /** Producer ids with pending offsets in {@code group}. */
    public Set<Long> pendingProducers(String group) {
        return state(group).pending().keySet();
    }

    /** Whether an open transaction has staged an offset for this group and partition. */
    public boolean hasPending(String group, String topic, int partition) {
        for (PendingOffsets p : state(group).pending().values()) {
            for (Committed c : p.offsets()) {
                if (c.partition() == partition && c.topic().equals(topic)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Forgets the group and removes its file (DeleteGroups). */
    public void deleteGroup(String group) {
        synchronized (lock(group)) {
            byGroup.remove(group);
            try {
                Files.deleteIfExists(file(group));
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, file(group) + ": cannot delete: " + e.getMessage(), e);
            }
        }
    }

    /** Holds the group's lock. */
    private void write(String group, State next) {
        List<Committed> list = new ArrayList<>(next.committed().values());
        list.sort(Comparator.comparing(c -> new PartitionKey(c.topic(), c.partition())));
        StateJson.write(
                file(group),
                new GroupOffsets(group, list, new ArrayList<>(next.pending().values())));
        byGroup.put(group, next);
    }

    Path file(String group) {
        return dir.resolve(GroupOffsetsFile.fileName(group));
    }
}
