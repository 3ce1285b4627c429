package io.kaas.broker.share;

import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;

/**
 * Share-partition state in {@code <data>/__cluster/share_groups/<group>.json}, one file per share group
 * (named as the group's offsets file is), rewritten atomically and fsynced ({@link StateJson#write})
 * after every change of its state and before that change is answered: an accepted record is never
 * delivered again after a crash, and an acquired one comes back with its delivery count.
 */
public final class ShareStateStore {
    /** The file's shape. */
    public record GroupFile(int version, String groupId, List<PartitionFile> partitions) {}

    /** One share partition: SPSO, SPEO and its in-flight records. */
    public record PartitionFile(
            String topicId,
            String topic,
            int partition,
            long startOffset,
            long endOffset,
            List<SharePartition.StoredRecord> records) {}

    private final Path dir;

    public ShareStateStore(Path clusterDir) {
        this.dir = ClusterDir.shareGroups(clusterDir);
    }

    public Path fileOf(String groupId) {
        return dir.resolve(GroupOffsetsFile.fileName(groupId));
    }

    /** The group's stored partitions; empty when it has none. */
    public Map<TopicIdPartition, SharePartition.Snapshot> load(String groupId) {
        Map<TopicIdPartition, SharePartition.Snapshot> out = new LinkedHashMap<>();
        StateJson.read(fileOf(groupId), GroupFile.class).ifPresent(f -> {
            for (PartitionFile p : f.partitions() == null ? List.<PartitionFile>of() : f.partitions()) {
                out.put(
                        new TopicIdPartition(Uuid.fromString(p.topicId()), p.partition(), p.topic()),
                        new SharePartition.Snapshot(
                                p.startOffset(), p.endOffset(), p.records() == null ? List.of() : p.records()));
            }
        });
        return out;
    }

    public void save(String groupId, Map<TopicIdPartition, SharePartition.Snapshot> partitions) {
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create: " + e.getMessage(), e);
        }
        List<PartitionFile> files = new ArrayList<>();
        partitions.forEach((tp, s) -> files.add(new PartitionFile(
                tp.topicId().toString(), tp.topic(), tp.partition(), s.startOffset(), s.endOffset(), s.records())));
        StateJson.write(fileOf(groupId), new GroupFile(1, groupId, files));
    }

    public void delete(String groupId) {
        try {
            Files.deleteIfExists(fileOf(groupId));
            AtomicFile.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, fileOf(groupId) + ": cannot delete: " + e.getMessage(), e);
        }
    }
}
