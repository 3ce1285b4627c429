package io.kaas.broker.group;

import io.kaas.storage.StorageException;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
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
 * Committed offsets, one file per group: {@code <data>/__cluster/__consumer_offsets/<group>.json},
 * replaced atomically (tmp + fsync + rename + dir fsync) on every commit, so an acknowledged commit
 * survives a crash. Loaded whole at start. Group ids become file names by percent-encoding every byte
 * outside {@code [A-Za-z0-9._-]} (and a leading '.'), so any group id maps to one safe name and back.
 *
 * <p>Thread-safe: a group's map is replaced under the group's monitor (callers hold it); the file write
 * happens under the same monitor so that files are written in commit order.
 */
public final class OffsetStore {
    private static final String SUFFIX = ".json";

    /** One committed offset, as stored. */
    public record Committed(String topic, int partition, long offset, int leaderEpoch, String metadata, long commitTimestamp) {}

    /** The file's content. */
    public record GroupOffsets(String groupId, List<Committed> offsets) {}

    private final Path dir;
    private final Map<String, Map<PartitionKey, Committed>> byGroup = new ConcurrentHashMap<>();

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
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot load committed offsets: " + e.getMessage(), e);
        }
        byGroup.putAll(readAll());
    }

    /**
     * Re-reads every group's file: with several brokers over one shared directory, the broker that becomes
     * the groups' coordinator takes over the commits its predecessor wrote. Called when no commit reaches
     * this broker yet (it was not the coordinator until now).
     */
    public void reload() {
        Map<String, Map<PartitionKey, Committed>> now = readAll();
        byGroup.keySet().retainAll(now.keySet());
        byGroup.putAll(now);
    }

    private Map<String, Map<PartitionKey, Committed>> readAll() {
        Map<String, Map<PartitionKey, Committed>> out = new java.util.HashMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                GroupOffsets g = StateJson.read(f, GroupOffsets.class).orElse(null);
                if (g == null) {
                    continue;
                }
                Map<PartitionKey, Committed> m = new TreeMap<>();
                for (Committed c : g.offsets()) {
                    m.put(new PartitionKey(c.topic(), c.partition()), c);
                }
                out.put(g.groupId(), m);
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot load committed offsets: " + e.getMessage(), e);
        }
        return out;
    }

    public Set<String> groups() {
        return byGroup.keySet();
    }

    public Map<PartitionKey, Committed> offsets(String group) {
        return byGroup.getOrDefault(group, Map.of());
    }

    /** Stores and durably writes {@code commits} (caller holds the group's monitor). */
    public void commit(String group, List<Committed> commits) {
        Map<PartitionKey, Committed> next = new TreeMap<>(offsets(group));
        for (Committed c : commits) {
            next.put(new PartitionKey(c.topic(), c.partition()), c);
        }
        write(group, next);
    }

    /** Removes the given partitions' offsets (OffsetDelete); caller holds the group's monitor. */
    public void delete(String group, List<PartitionKey> partitions) {
        Map<PartitionKey, Committed> next = new TreeMap<>(offsets(group));
        partitions.forEach(next::remove);
        write(group, next);
    }

    /** Forgets the group and removes its file (DeleteGroups). */
    public void deleteGroup(String group) {
        byGroup.remove(group);
        try {
            Files.deleteIfExists(file(group));
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file(group) + ": cannot delete: " + e.getMessage(), e);
        }
    }

    private void write(String group, Map<PartitionKey, Committed> offsets) {
        List<Committed> list = new ArrayList<>(offsets.values());
        list.sort(Comparator.comparing(c -> new PartitionKey(c.topic(), c.partition())));
        StateJson.write(file(group), new GroupOffsets(group, list));
        byGroup.put(group, offsets);
    }

    Path file(String group) {
        return dir.resolve(fileName(group));
    }

    static String fileName(String group) {
        StringBuilder sb = new StringBuilder();
        byte[] bytes = group.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            boolean safe = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                    || b == '_' || b == '-' || (b == '.' && i > 0);
            if (safe) {
                sb.append((char) b);
            } else {
                sb.append('%').append(String.format("%02X", b));
            }
        }
        return sb + SUFFIX;
    }
}
