package io.kaas.migration;

import io.kaas.storage.format.GroupOffsetsFile.Committed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;

/**
 * Committed consumer-group offsets as {@code __consumer_offsets} holds them, decoded with Apache's
 * {@link GroupCoordinatorRecordSerde}: the last OffsetCommit value per group and partition, a tombstone removing it.
 * Offsets a transaction committed (TxnOffsetCommit) count only once its COMMIT marker follows in the same
 * partition, as Apache's coordinator replays them; an aborted or still open transaction's offsets are left out.
 * Group metadata records (members, assignments) are not carried: a group rejoins, and resumes at these offsets.
 */
public record CommittedGroupOffsets(Map<String, List<Committed>> byGroup) {
    /** One committed offset. */
    private record Key(String group, String topic, int partition) {}

    public CommittedGroupOffsets {
        byGroup = Collections.unmodifiableMap(new TreeMap<>(byGroup));
    }

    public int offsetCount() {
        return byGroup.values().stream().mapToInt(List::size).sum();
    }

    public static CommittedGroupOffsets read(List<Path> partitionDirs) {
        GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
        Map<Key, Committed> committed = new TreeMap<>(java.util.Comparator.comparing(Key::group)
                .thenComparing(Key::topic)
                .thenComparingInt(Key::partition));
        for (Path dir : partitionDirs) {
            Map<Long, Map<Key, Committed>> pending = new HashMap<>();
            ApacheBatches.forEach(dir, (file, batch) -> replay(serde, batch, committed, pending));
        }
        Map<String, List<Committed>> out = new TreeMap<>();
        committed.forEach(
                (k, v) -> out.computeIfAbsent(k.group(), g -> new ArrayList<>()).add(v));
        return new CommittedGroupOffsets(out);
    }

    private static void replay(
            GroupCoordinatorRecordSerde serde,
            RecordBatch batch,
            Map<Key, Committed> committed,
            Map<Long, Map<Key, Committed>> pending) {
        if (batch.isControlBatch()) {
            for (Record r : batch) {
                Map<Key, Committed> staged = pending.remove(batch.producerId());
                if (staged != null && ControlRecordType.parse(r.key()) == ControlRecordType.COMMIT) {
                    committed.putAll(staged);
                }
            }
            return;
        }
        Map<Key, Committed> into =
                batch.isTransactional() ? pending.computeIfAbsent(batch.producerId(), id -> new HashMap<>()) : null;
        for (Record r : batch) {
            if (!r.hasKey()) {
                continue;
            }
            CoordinatorRecord record;
            try {
                record = serde.deserialize(r.key(), r.hasValue() ? r.value() : null);
            } catch (RuntimeException e) {
                continue; // a record type this version does not know (share groups, streams groups): not an offset
            }
            if (!(record.key() instanceof OffsetCommitKey k)) {
                continue;
            }
            Key key = new Key(k.group(), k.topic(), k.partition());
            if (record.value() == null) {
                if (into != null) {
                    into.remove(key);
                }
                committed.remove(key);
                continue;
            }
            OffsetCommitValue v = (OffsetCommitValue) record.value().message();
            Committed offset = new Committed(
                    k.topic(), k.partition(), v.offset(), v.leaderEpoch(), v.metadata(), v.commitTimestamp());
            if (into != null) {
                into.put(key, offset);
            } else {
                committed.put(key, offset);
            }
        }
    }
}
