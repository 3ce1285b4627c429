package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two engines over one directory, as two brokers over a shared volume: the second takes a partition over
 * in a newer epoch while the first, fenced but not yet aware (stopped, cut off), still writes. The late
 * writes are never visible: not to the new owner, not after recovery.
 */
class SharedDirectoryTakeoverTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private DiskStorageEngine engine() {
        return DiskStorageEngine.shared(EngineConfig.defaults(dir).withSegmentBytes(1024), EngineObserver.NONE);
    }

    private static void append(StorageEngine e, int records) {
        e.partition(TP).append(TestBatches.batch(records, 1_000), Acks.ALL, -1).join();
    }

    /** (baseOffset, partitionLeaderEpoch, records) of every batch readable from offset 0. */
    private static List<long[]> batches(StorageEngine e) {
        List<long[]> out = new ArrayList<>();
        long next = 0;
        while (next < e.partition(TP).state().highWatermark()) {
            FetchResult r = e.partition(TP).read(next, 1 << 20, Long.MAX_VALUE);
            for (RecordBatch b : MemoryRecords.readableRecords(r.records()).batches()) {
                out.add(new long[] {b.baseOffset(), b.partitionLeaderEpoch(), b.countOrNull()});
                next = b.nextOffset();
            }
        }
        return out;
    }

    @Test
    void aPartitionNotTakenOverIsNeitherOpenedNorTouched() {
        try (DiskStorageEngine a = engine()) {
            a.createTopic("t", 1, TopicConfig.EMPTY);
            assertThatThrownBy(() -> a.partition(TP))
                    .isInstanceOf(StorageException.class)
                    .extracting(x -> ((StorageException) x).kind())
                    .isEqualTo(StorageException.Kind.NOT_OWNED);
            try (DiskStorageEngine b = engine()) {
                assertThat(b.topic("t"))
                        .as("shared: no directory lock, topics read")
                        .isPresent();
            }
            assertThat(Files.exists(dir.resolve("t/0/manifest.json"))).isFalse();
        }
    }

    @Test
    void aZombiesLateWritesInItsOldSegmentAreNeverVisible() throws Exception {
        DiskStorageEngine zombie = engine();
        zombie.createTopic("t", 1, TopicConfig.EMPTY);
        zombie.takeOver(TP, 1);
        append(zombie, 1);
        append(zombie, 1);

        try (DiskStorageEngine owner = engine()) {
            owner.takeOver(TP, 2);
            assertThat(owner.partition(TP).state().highWatermark()).isEqualTo(2);
            assertThat(segmentNames())
                    .contains("00000001-00000000000000000000.log", "00000002-00000000000000000002.log");
            assertThat(StateJson.read(
                            dir.resolve("t/0/" + LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class))
                    .hasValue(new LeaderEpochCheckpoint(
                            1, List.of(new LeaderEpochCheckpoint.Entry(1, 0), new LeaderEpochCheckpoint.Entry(2, 2))));

            append(zombie, 5); // lands in epoch 1's segment, at offsets the new owner hands out too
            append(owner, 1);
            assertThat(batches(owner))
                    .extracting(b -> b[0] + "@" + b[1] + "x" + b[2])
                    .containsExactly("0@1x1", "1@1x1", "2@2x1");
            zombie.abandon(TP);
            zombie.close();
        }
        try (DiskStorageEngine next = engine()) {
            next.takeOver(TP, 3);
            assertThat(batches(next))
                    .extracting(b -> b[0] + "@" + b[1] + "x" + b[2])
                    .containsExactly("0@1x1", "1@1x1", "2@2x1");
            assertThat(next.partition(TP).state().highWatermark()).isEqualTo(3);
        }
    }

    @Test
    void aSegmentAZombieRolledToAfterTheTakeoverIsRemoved() throws Exception {
        DiskStorageEngine zombie = engine();
        zombie.createTopic("t", 1, TopicConfig.EMPTY);
        zombie.takeOver(TP, 1);
        append(zombie, 1);
        try (DiskStorageEngine owner = engine()) {
            owner.takeOver(TP, 2);
            append(owner, 1);
            // The zombie fills its segment past segment.bytes and rolls: a file of epoch 1 beyond the takeover.
            for (int i = 0; i < 30; i++) {
                append(zombie, 3);
            }
            assertThat(segmentNames().stream()
                            .filter(n -> n.startsWith("00000001-") && n.endsWith(".log"))
                            .count())
                    .isGreaterThan(1);
            zombie.abandon(TP);
            zombie.close();
        }
        try (DiskStorageEngine next = engine()) {
            next.takeOver(TP, 3);
            assertThat(batches(next)).extracting(b -> b[0] + "@" + b[1]).containsExactly("0@1", "1@2");
            assertThat(segmentNames())
                    .filteredOn(n -> n.endsWith(".log"))
                    .containsExactly(
                            "00000001-00000000000000000000.log",
                            "00000002-00000000000000000001.log",
                            "00000003-00000000000000000002.log");
        }
    }

    @Test
    void anOlderEpochCannotTakeOver() {
        try (DiskStorageEngine a = engine()) {
            a.createTopic("t", 1, TopicConfig.EMPTY);
            a.takeOver(TP, 5);
            a.release(TP);
            assertThatThrownBy(() -> a.takeOver(TP, 4))
                    .isInstanceOf(StorageException.class)
                    .extracting(x -> ((StorageException) x).kind())
                    .isEqualTo(StorageException.Kind.FENCED_LEADER_EPOCH);
            assertThat(a.taken()).isEmpty();
            assertThatThrownBy(() -> a.partition(TP)).isInstanceOf(StorageException.class);
        }
    }

    @Test
    void aTopicAnotherBrokerCreatedIsFoundOnTakeover() {
        try (DiskStorageEngine a = engine();
                DiskStorageEngine b = engine()) {
            a.createTopic("t", 1, TopicConfig.EMPTY);
            b.takeOver(TP, 1);
            append(b, 2);
            assertThat(b.partition(TP).state().highWatermark()).isEqualTo(2);
        }
    }

    private List<String> segmentNames() throws Exception {
        try (Stream<Path> s = Files.list(dir.resolve("t/0"))) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".log") || n.endsWith(".index"))
                    .sorted()
                    .toList();
        }
    }
}
