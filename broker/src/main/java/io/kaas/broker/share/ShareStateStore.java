package io.kaas.broker.share;

import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.ShareGroupStateFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.CoalescingStateFiles;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;

/**
 * Share-partition state in {@code <data>/__cluster/share_groups/<group>.json}, one file per share group
 * (core-storage {@link ShareGroupStateFile}), group-committed ({@link CoalescingStateFiles}): a change is handed
 * over under the group's monitor, in the order the changes were made, and its future completes once a round of
 * fsyncs that covers it is done; the caller answers only then. So an accepted record is never delivered again
 * after a crash, and an acquired one comes back with its delivery count, while the fsyncs happen outside the
 * group's monitor and many changes (of one group or of several) share them.
 *
 * <p>Owns the writer thread {@code kaas-share-state}; {@link #close} writes what was handed over, then stops it.
 */
public final class ShareStateStore implements AutoCloseable {
    private final Path dir;
    private final CoalescingStateFiles files;

    public ShareStateStore(Path clusterDir) {
        this.dir = ClusterDir.shareGroups(clusterDir);
        this.files = new CoalescingStateFiles(dir, "kaas-share-state");
    }

    public Path fileOf(String groupId) {
        return dir.resolve(GroupOffsetsFile.fileName(groupId));
    }

    /** Whether the group has state (handed over or on disk). */
    public boolean exists(String groupId) {
        return files.exists(GroupOffsetsFile.fileName(groupId));
    }

    /** The group's stored partitions, as last handed over; empty when it has none. */
    public Map<TopicIdPartition, SharePartition.Snapshot> load(String groupId) {
        Map<TopicIdPartition, SharePartition.Snapshot> out = new LinkedHashMap<>();
        stored(groupId).ifPresent(f -> {
            for (ShareGroupStateFile.Partition p : f.partitions()) {
                List<SharePartition.StoredRun> runs =
                        new ArrayList<>(p.records().size());
                for (ShareGroupStateFile.Record r : p.records()) {
                    runs.add(new SharePartition.StoredRun(
                            r.offset(), r.last(), RecordState.valueOf(r.state()), r.deliveryCount()));
                }
                out.put(
                        new TopicIdPartition(Uuid.fromString(p.topicId()), p.partition(), p.topic()),
                        new SharePartition.Snapshot(p.startOffset(), p.endOffset(), runs));
            }
        });
        return out;
    }

    private Optional<ShareGroupStateFile.Group> stored(String groupId) {
        Path file = fileOf(groupId);
        try {
            Optional<byte[]> bytes = files.read(file.getFileName().toString());
            return bytes.isEmpty()
                    ? Optional.empty()
                    : Optional.of(StateJson.fromBytes(bytes.get(), ShareGroupStateFile.Group.class));
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file + ": cannot read share state: " + IoFailure.describe(e), e);
        }
    }

    /** Hands the group's state over for the next round; completes once it is durable. */
    public CompletableFuture<Void> save(String groupId, Map<TopicIdPartition, SharePartition.Snapshot> partitions) {
        List<ShareGroupStateFile.Partition> out = new ArrayList<>(partitions.size());
        partitions.forEach((tp, s) -> {
            List<ShareGroupStateFile.Record> records = runs(s.runs());
            out.add(new ShareGroupStateFile.Partition(
                    tp.topicId().toString(), tp.topic(), tp.partition(), s.startOffset(), s.endOffset(), records));
        });
        ShareGroupStateFile.Group snapshot = new ShareGroupStateFile.Group(ShareGroupStateFile.VERSION, groupId, out);
        // Encoded on the writer thread, outside the group's monitor, and only the newest of a round.
        return files.write(GroupOffsetsFile.fileName(groupId), () -> StateJson.toBytes(snapshot));
    }

    /**
     * The partition's runs as the file stores them: neighbours in one state with one delivery count (in memory they
     * may differ by member or lock deadline, which are not stored) are one entry.
     */
    static List<ShareGroupStateFile.Record> runs(List<SharePartition.StoredRun> runs) {
        List<ShareGroupStateFile.Record> out = new ArrayList<>(runs.size());
        int i = 0;
        while (i < runs.size()) {
            SharePartition.StoredRun first = runs.get(i);
            int j = i;
            while (j + 1 < runs.size()) {
                SharePartition.StoredRun next = runs.get(j + 1);
                if (next.firstOffset() != runs.get(j).lastOffset() + 1
                        || next.state() != first.state()
                        || next.deliveryCount() != first.deliveryCount()) {
                    break;
                }
                j++;
            }
            long last = runs.get(j).lastOffset();
            out.add(new ShareGroupStateFile.Record(
                    first.firstOffset(),
                    last == first.firstOffset() ? null : last,
                    first.state().name(),
                    first.deliveryCount()));
            i = j + 1;
        }
        return out;
    }

    /** Removes the group's file (DeleteGroups); completes once the removal is durable. */
    public CompletableFuture<Void> delete(String groupId) {
        return files.delete(GroupOffsetsFile.fileName(groupId));
    }

    @Override
    public void close() {
        files.close();
    }
}
