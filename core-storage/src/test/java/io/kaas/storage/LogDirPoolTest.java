package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PlacementRule;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A disk engine over three log dirs (KIP-112): placement, pins, reopen, a partition in two dirs. */
class LogDirPoolTest {
    @TempDir
    Path root;

    private LogDirs pool(LogDir... dirs) {
        return new LogDirs(List.of(dirs));
    }

    private LogDirs three() {
        return LogDirs.parse(root.resolve("d0") + "," + root.resolve("d1") + "," + root.resolve("d2"));
    }

    private static DiskStorageEngine open(LogDirs pool, PlacementRule rule) {
        return new DiskStorageEngine(
                EngineConfig.defaults(pool.home().path()).withLogDirs(pool).withPlacement(rule));
    }

    private static void append(StorageEngine engine, String topic, int partition, int records) throws Exception {
        engine.partition(new TopicPartition(topic, partition))
                .append(TestBatches.batch(records, 1), Acks.ALL, -1)
                .get();
    }

    private static List<Integer> partitionsIn(Path dir, String topic) throws Exception {
        List<Integer> out = new ArrayList<>();
        Path t = dir.resolve(topic);
        if (Files.isDirectory(t)) {
            try (var s = Files.list(t)) {
                s.filter(Files::isDirectory)
                        .map(p -> Integer.parseInt(p.getFileName().toString()))
                        .sorted()
                        .forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void newPartitionsSpreadOverTheDirsAndEachDirReadsOnItsOwn() throws Exception {
        LogDirs pool = three();
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            TopicInfo t = engine.createTopic("t", 6, TopicConfig.EMPTY.withKafkaConfig("cleanup.policy", "compact"));
            for (int p = 0; p < 6; p++) {
                append(engine, "t", p, p + 1);
            }
            for (LogDir d : pool.dirs()) {
                assertThat(partitionsIn(d.path(), "t")).hasSize(2);
                assertThat(d.path().resolve(".lock")).exists();
                assertThat(Files.readString(d.path().resolve("t/.config.json"))).contains("compact");
                assertThat(Files.readString(d.path().resolve("t/.topic-id.json")))
                        .contains(t.topicId().toString());
            }
            assertThat(engine.logDirOf(new TopicPartition("t", 0))).contains(pool.home());
            engine.alterTopicConfig("t", c -> c.withKafkaConfig("segment.bytes", "4096"));
            for (LogDir d : pool.dirs()) {
                assertThat(Files.readString(d.path().resolve("t/.config.json"))).contains("4096");
            }
        }
        assertThat(pool.dirs().get(1).path().resolve("__cluster")).doesNotExist();
    }

    @Test
    void reopenFindsEachPartitionWhereItIsWhateverThePlacementSaysNow() throws Exception {
        LogDirs pool = three();
        Map<Integer, LogDir> where = new java.util.TreeMap<>();
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            engine.createTopic("t", 5, TopicConfig.EMPTY);
            for (int p = 0; p < 5; p++) {
                append(engine, "t", p, 10 + p);
                where.put(p, engine.logDirOf(new TopicPartition("t", p)).orElseThrow());
            }
        }
        assertThat(where.values()).containsAll(pool.dirs());
        // Now only the last dir takes new partitions, and the pool lists it first: nothing moves.
        LogDirs changed = pool(
                pool.dirs().get(2),
                new LogDir("a", pool.dirs().get(0).path(), true, true, Map.of()),
                new LogDir("b", pool.dirs().get(1).path(), false, false, Map.of()));
        try (DiskStorageEngine engine = open(changed, PlacementRule.BYTES)) {
            TopicInfo t = engine.topic("t").orElseThrow();
            assertThat(t.partitions()).isEqualTo(5);
            for (int p = 0; p < 5; p++) {
                TopicPartition tp = new TopicPartition("t", p);
                assertThat(engine.partition(tp).state().highWatermark()).isEqualTo(10 + p);
                assertThat(engine.logDirOf(tp).orElseThrow().path())
                        .isEqualTo(where.get(p).path());
            }
            engine.createPartitions("t", 7);
            assertThat(engine.logDirOf(new TopicPartition("t", 6)).orElseThrow().path())
                    .isEqualTo(pool.dirs().get(2).path());
        }
    }

    @Test
    void leastBytesPicksTheEmptiestDirAndLeastPartitionsTheFirstOfATie() throws Exception {
        LogDirs pool = three();
        try (DiskStorageEngine engine = open(pool, PlacementRule.BYTES)) {
            engine.createTopic("a", 3, TopicConfig.EMPTY);
            append(engine, "a", 0, 100);
            append(engine, "a", 1, 50);
            engine.createTopic("b", 1, TopicConfig.EMPTY);
            assertThat(engine.logDirOf(new TopicPartition("b", 0)))
                    .contains(pool.dirs().get(2));
        }
        LogDirs again = LogDirs.parse(root.resolve("e0") + "," + root.resolve("e1") + "," + root.resolve("e2"));
        try (DiskStorageEngine engine = open(again, PlacementRule.PARTITIONS)) {
            engine.createTopic("a", 3, TopicConfig.EMPTY);
            append(engine, "a", 0, 100);
            append(engine, "a", 1, 50);
            engine.createTopic("b", 1, TopicConfig.EMPTY);
            assertThat(engine.logDirOf(new TopicPartition("b", 0))).contains(again.home());
        }
    }

    @Test
    void aPinnedTopicGoesOnlyToItsDirsAndCordonedOrIneligibleDirsGetNothingUnpinned() throws Exception {
        LogDirs pool = pool(
                new LogDir("fast", root.resolve("d0"), true, false, Map.of("disk", "nvme")),
                new LogDir("bulk", root.resolve("d1"), false, false, Map.of()),
                new LogDir("draining", root.resolve("d2"), true, true, Map.of()));
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            engine.createTopic("pinned", 4, TopicConfig.EMPTY.withAnyKafkaConfig(LogDirs.PIN_CONFIG, "bulk"));
            engine.createTopic("free", 4, TopicConfig.EMPTY);
            assertThat(partitionsIn(root.resolve("d1"), "pinned")).containsExactly(0, 1, 2, 3);
            assertThat(partitionsIn(root.resolve("d0"), "pinned")).isEmpty();
            assertThat(partitionsIn(root.resolve("d0"), "free")).containsExactly(0, 1, 2, 3);
            assertThat(Files.exists(root.resolve("d2/free"))).isFalse();
            assertThatThrownBy(() -> engine.createTopic(
                            "nowhere", 1, TopicConfig.EMPTY.withAnyKafkaConfig(LogDirs.PIN_CONFIG, "draining")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cordoned");
            assertThatThrownBy(() -> engine.createTopic(
                            "typo", 1, TopicConfig.EMPTY.withAnyKafkaConfig(LogDirs.PIN_CONFIG, "fsat")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fsat");
            assertThat(engine.topic("typo")).isEmpty();
            assertThat(root.resolve("d0/typo")).doesNotExist();
        }
    }

    @Test
    void aPartitionInTwoDirsIsRefusedAtOpenNamingBoth() throws Exception {
        LogDirs pool = three();
        Path elsewhere;
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            engine.createTopic("t", 3, TopicConfig.EMPTY);
            append(engine, "t", 1, 3);
            elsewhere = pool.dirs().get(2).path().resolve("t/1");
        }
        Path original = pool.dirs().get(1).path().resolve("t/1");
        Files.createDirectories(elsewhere);
        try (var s = Files.list(original)) {
            for (Path f : s.toList()) {
                Files.copy(f, elsewhere.resolve(f.getFileName()));
            }
        }
        assertThatThrownBy(() -> open(pool, PlacementRule.PARTITIONS))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED))
                .hasMessageContaining(original.toString())
                .hasMessageContaining(elsewhere.toString());
        // Nothing was left locked: with the copy gone, the pool opens.
        io.kaas.storage.layout.TopicDir.deleteRecursively(elsewhere);
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            assertThat(engine.partition(new TopicPartition("t", 1)).state().highWatermark())
                    .isEqualTo(3);
        }
    }

    @Test
    void deleteRemovesTheTopicFromEveryDirAndEachDirIsLockedOnItsOwn() throws Exception {
        LogDirs pool = three();
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            engine.createTopic("t", 3, TopicConfig.EMPTY);
            LogDirs overlapping =
                    LogDirs.parse(root.resolve("x") + "," + pool.dirs().get(2).path());
            assertThatThrownBy(() -> open(overlapping, PlacementRule.PARTITIONS))
                    .isInstanceOfSatisfying(
                            StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.LOCKED));
            engine.deleteTopic("t");
            for (LogDir d : pool.dirs()) {
                try (var s = Files.list(d.path())) {
                    assertThat(s.map(p -> p.getFileName().toString()))
                            .doesNotContain("t")
                            .noneMatch(n -> n.endsWith(".deleting"));
                }
            }
        }
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            assertThat(engine.topics()).isEmpty();
        }
    }

    @Test
    void aTopicFoundOnlyOutsideTheFirstDirIsKeptWithItsIdAndConfig() throws Exception {
        LogDirs pool = three();
        TopicInfo before;
        try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
            before = engine.createTopic("t", 3, TopicConfig.EMPTY.withKafkaConfig("retention.ms", "60000"));
            append(engine, "t", 2, 4);
        }
        // The operator replaces the first dir by an empty one (its partition goes with it).
        LogDirs rest = pool(
                LogDir.of(root.resolve("fresh")),
                pool.dirs().get(1),
                pool.dirs().get(2));
        try (DiskStorageEngine engine = open(rest, PlacementRule.PARTITIONS)) {
            TopicInfo t = engine.topic("t").orElseThrow();
            assertThat(t.topicId()).isEqualTo(before.topicId());
            assertThat(t.config().retentionMs()).isEqualTo(60000L);
            assertThat(t.partitions()).isEqualTo(3);
            assertThat(engine.partition(new TopicPartition("t", 2)).state().highWatermark())
                    .isEqualTo(4);
            assertThat(engine.partition(new TopicPartition("t", 0)).state().highWatermark())
                    .isZero();
            assertThat(engine.logDirOf(new TopicPartition("t", 0))).contains(rest.home());
        }
        assertThat(Files.readString(root.resolve("fresh/t/.topic-id.json")))
                .contains(before.topicId().toString());
    }

    @Test
    void thePoolWorksOnAnInMemoryFileSystem() throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            LogDirs pool =
                    pool(LogDir.of(fs.getPath("/v0")), LogDir.of(fs.getPath("/v1")), LogDir.of(fs.getPath("/v2")));
            try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
                engine.createTopic("t", 3, TopicConfig.EMPTY);
                for (int p = 0; p < 3; p++) {
                    append(engine, "t", p, 2);
                }
            }
            try (DiskStorageEngine engine = open(pool, PlacementRule.PARTITIONS)) {
                for (int p = 0; p < 3; p++) {
                    TopicPartition tp = new TopicPartition("t", p);
                    assertThat(engine.partition(tp).state().highWatermark()).isEqualTo(2);
                    assertThat(engine.logDirOf(tp)).contains(pool.dirs().get(p));
                }
            }
        }
    }
}
