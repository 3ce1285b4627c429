package io.kaas.migration;

import io.kaas.storage.format.GroupOffsetsFile.Committed;
import io.kaas.storage.format.GroupOffsetsFile.GroupOffsets;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

/**
 * kaas's committed group offsets as Apache's {@code __consumer_offsets-<n>} partitions: each group's offsets in the
 * partition Apache's coordinator looks for it ({@link ApacheNames#offsetsPartitionFor}), one batch per group of
 * OffsetCommit records built by Apache's own {@link GroupCoordinatorRecordHelpers} and serialized by its
 * {@link GroupCoordinatorRecordSerde}. The coordinator loading the partition replays them; a group known only by its
 * offsets becomes an empty classic group, which is what a group that committed and left looks like.
 */
final class ConsumerOffsetsLog {
    /** The partitions written: index to log end offset. */
    record Written(Map<Integer, Long> logEnds, int groups, int offsets) {}

    private ConsumerOffsetsLog() {}

    /** Groups by the {@code __consumer_offsets} partition they live in; groups with no offsets are left out. */
    static Map<Integer, List<GroupOffsets>> byPartition(List<GroupOffsets> groups, int partitions) {
        Map<Integer, List<GroupOffsets>> out = new TreeMap<>();
        for (GroupOffsets g : groups) {
            if (!g.offsets().isEmpty()) {
                out.computeIfAbsent(ApacheNames.offsetsPartitionFor(g.groupId(), partitions), p -> new ArrayList<>())
                        .add(g);
            }
        }
        return out;
    }

    static Written write(
            Path logDir, UUID topicId, Map<Integer, List<GroupOffsets>> byPartition, Map<String, UUID> ids) {
        GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
        Map<Integer, Long> logEnds = new TreeMap<>();
        int groups = 0;
        int offsets = 0;
        for (Map.Entry<Integer, List<GroupOffsets>> e : byPartition.entrySet()) {
            Path dir = logDir.resolve(ApacheNames.partitionDir(ApacheNames.CONSUMER_OFFSETS, e.getKey()));
            Path segment = dir.resolve(ApacheNames.segmentFile(0));
            long next = 0;
            try {
                AtomicFile.createDirectories(dir);
                try (FileChannel ch =
                        FileChannel.open(segment, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    for (GroupOffsets g : e.getValue()) {
                        List<SimpleRecord> records = new ArrayList<>();
                        for (Committed c : g.offsets()) {
                            CoordinatorRecord r = GroupCoordinatorRecordHelpers.newOffsetCommitRecord(
                                    g.groupId(),
                                    c.topic(),
                                    c.partition(),
                                    new OffsetAndMetadata(
                                            c.offset(),
                                            c.leaderEpoch() < 0 ? OptionalInt.empty() : OptionalInt.of(c.leaderEpoch()),
                                            c.metadata() == null ? OffsetAndMetadata.NO_METADATA : c.metadata(),
                                            c.commitTimestamp(),
                                            OptionalLong.empty(),
                                            topicIdOf(ids, c.topic())));
                            records.add(new SimpleRecord(
                                    c.commitTimestamp(), serde.serializeKey(r), serde.serializeValue(r)));
                        }
                        MemoryRecords batch = MemoryRecords.withRecords(
                                RecordBatch.MAGIC_VALUE_V2,
                                next,
                                Compression.NONE,
                                TimestampType.CREATE_TIME,
                                records.toArray(SimpleRecord[]::new));
                        ByteBuffer buf = batch.buffer();
                        while (buf.hasRemaining()) {
                            ch.write(buf);
                        }
                        next += records.size();
                        groups++;
                        offsets += records.size();
                    }
                    ch.force(true);
                }
                LogDirFailureChannel failures = new LogDirFailureChannel(1);
                PartitionMetadataFile metadata =
                        new PartitionMetadataFile(PartitionMetadataFile.newFile(dir.toFile()), failures);
                metadata.record(new Uuid(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits()));
                metadata.maybeFlush();
                new LeaderEpochCheckpointFile(LeaderEpochCheckpointFile.newFile(dir.toFile()), failures)
                        .write(List.of(new EpochEntry(0, 0)));
                AtomicFile.fsyncDirectory(dir);
            } catch (IOException ex) {
                throw new StorageException(StorageException.Kind.IO, dir + ": cannot write: " + ex.getMessage(), ex);
            }
            logEnds.put(e.getKey(), next);
        }
        return new Written(logEnds, groups, offsets);
    }

    private static Uuid topicIdOf(Map<String, UUID> ids, String topic) {
        UUID id = ids.get(topic);
        return id == null ? Uuid.ZERO_UUID : new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
