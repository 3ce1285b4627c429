package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One of three log dirs fails mid-produce (KIP-112), on the fault-injecting file system: its partitions fail
 * at once and answer a storage error, nothing unsynced was acknowledged (a power cut shows it), the other dirs'
 * partitions keep appending with fsyncs; at restart a dir still unusable is offline from the start.
 */
class LogDirFailureTest {
    private FaultyFileSystem fs;
    private List<Path> dirs;
    private DiskStorageEngine engine;

    @BeforeEach
    void setUp() throws Exception {
        fs = FaultyFileSystem.onJimfs();
        dirs = new ArrayList<>();
        for (String d : List.of("d0", "d1", "d2")) {
            dirs.add(Files.createDirectory(fs.root().resolve(d)));
        }
        AtomicFile.fsyncDirectory(fs.root());
        engine = open(fs);
    }

    @AfterEach
    void tearDown() throws Exception {
        closeQuietly(engine);
        fs.close();
    }

    private DiskStorageEngine open(FaultyFileSystem world) {
        List<LogDir> pool = dirs.stream().map(world::pathOf).map(LogDir::of).toList();
        return new DiskStorageEngine(EngineConfig.defaults(pool.get(0).path()).withLogDirs(new LogDirs(pool)));
    }

    private static void closeQuietly(StorageEngine e) {
        try {
            e.close();
        } catch (RuntimeException afterPowerCut) {
            // an engine whose file system lost power cannot write its clean-close state
        }
    }

    private List<TopicPartition> in(Path dir) {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            TopicPartition tp = new TopicPartition("t", p);
            if (engine.logDirOf(tp).orElseThrow().path().equals(dir)) {
                out.add(tp);
            }
        }
        return out;
    }

    /** One acks=all append to each partition, all in flight at once; the last offset of each that was acknowledged. */
    private Map<TopicPartition, Long> produceRound() {
        Map<TopicPartition, CompletableFuture<AppendResult>> inFlight = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            TopicPartition tp = new TopicPartition("t", p);
            try {
                inFlight.put(tp, engine.partition(tp).append(TestBatches.batch(2, 1_000L), Acks.ALL, -1));
            } catch (StorageException refused) {
                // a partition of the offline dir
            }
        }
        Map<TopicPartition, Long> acked = new HashMap<>();
        inFlight.forEach((tp, f) -> {
            try {
                acked.put(tp, f.get(10, TimeUnit.SECONDS).lastOffset());
            } catch (Exception notAcknowledged) {
                // failed: fine, as long as nothing claims it
            }
        });
        return acked;
    }

    @Test
    void aDirFailingMidProduceTakesOnlyItsPartitionsOfflineAndNothingUnsyncedIsAcknowledged() throws Exception {
        engine.createTopic("t", 6, TopicConfig.EMPTY);
        Path failing = dirs.get(1);
        List<TopicPartition> offline = in(failing);
        assertThat(offline).hasSize(2);
        Map<TopicPartition, Long> acked = new HashMap<>();
        for (int i = 0; i < 5; i++) {
            acked.putAll(produceRound());
        }
        assertThat(acked).hasSize(6);

        fs.faults().failFsync(Scope.under(failing), Repeat.ALWAYS);
        for (int i = 0; i < 5; i++) {
            Map<TopicPartition, Long> round = produceRound();
            assertThat(round.keySet())
                    .as("only the failed dir's partitions stop")
                    .doesNotContainAnyElementsOf(offline);
            assertThat(round).hasSize(4);
            acked.putAll(round);
        }

        assertThat(engine.offlineLogDirs()).containsOnlyKeys(LogDir.of(failing));
        assertThat(engine.offlineLogDirs().get(LogDir.of(failing))).contains("fsync");
        for (TopicPartition tp : offline) {
            assertThatThrownBy(() -> engine.partition(tp))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("log dir " + failing + " is offline")
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.IO);
            assertThat(engine.inOfflineLogDir(tp)).isTrue();
        }
        assertThat(engine.openPartitions()).extracting(PartitionLog::id).doesNotContainAnyElementsOf(offline);
        // The others keep group commit: their fsyncs go on.
        long forces =
                fs.forceCounts().of(Scope.under(dirs.get(0))) + fs.forceCounts().of(Scope.under(dirs.get(2)));
        acked.putAll(produceRound());
        assertThat(fs.forceCounts().of(Scope.under(dirs.get(0)))
                        + fs.forceCounts().of(Scope.under(dirs.get(2))))
                .isGreaterThan(forces);

        // Nothing new goes to the offline dir; a topic pinned only there is refused, naming it.
        engine.createTopic("n", 4, TopicConfig.EMPTY);
        for (int p = 0; p < 4; p++) {
            assertThat(engine.logDirOf(new TopicPartition("n", p)).orElseThrow().path())
                    .isNotEqualTo(failing);
        }
        assertThatThrownBy(() -> engine.createTopic(
                        "pinned", 1, TopicConfig.EMPTY.withAnyKafkaConfig(LogDirs.PIN_CONFIG, failing.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offline log dirs: " + failing);
        assertThatThrownBy(() -> engine.deleteTopic("t")).hasMessageContaining("offline");

        // Pull the power, repair the disk, reopen: every acknowledged append is there, in every dir.
        FaultyFileSystem after = fs.powerCut();
        closeQuietly(engine);
        fs = after;
        fs.faults().clearAll();
        engine = open(fs);
        assertThat(engine.offlineLogDirs()).isEmpty();
        for (Map.Entry<TopicPartition, Long> e : acked.entrySet()) {
            assertThat(engine.partitionState(e.getKey()).highWatermark())
                    .as("%s holds its last acknowledged offset", e.getKey())
                    .isGreaterThan(e.getValue());
        }
    }

    @Test
    void theHomeDirFailingIsTheBrokersFailure() throws Exception {
        engine.createTopic("t", 6, TopicConfig.EMPTY);
        produceRound();
        assertThat(engine.homeDirFailed()).isNotDone();
        fs.faults().failFsync(Scope.under(dirs.get(0)), Repeat.ALWAYS);
        produceRound();
        assertThat(engine.homeDirFailed().get(10, TimeUnit.SECONDS).getMessage())
                .contains("the home log dir " + dirs.get(0) + " failed");
        assertThat(engine.offlineLogDirs()).containsOnlyKeys(LogDir.of(dirs.get(0)));
    }

    @Test
    void aDirStillUnusableAtRestartIsOfflineFromTheStartAndTheRestServe() throws Exception {
        engine.createTopic("t", 6, TopicConfig.EMPTY);
        Map<TopicPartition, Long> acked = produceRound();
        // d1 holds t-1 and t-4: the others say the topic has six partitions. (One whose highest partitions are all
        // in a dir offline from the start looks smaller until the dir is back: the pool is the only record.)
        Path gone = dirs.get(1);
        List<TopicPartition> lost = in(gone);
        assertThat(lost).extracting(TopicPartition::partition).containsExactly(1, 4);
        engine.close();
        // The mount is gone: its directory replaced by something that is no directory.
        try (Stream<Path> all = Files.walk(gone)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Files.writeString(gone, "not a directory");

        engine = open(fs);
        assertThat(engine.offlineLogDirs()).containsOnlyKeys(LogDir.of(gone));
        engine.whenReady().get(10, TimeUnit.SECONDS);
        for (int p = 0; p < 6; p++) {
            TopicPartition tp = new TopicPartition("t", p);
            if (lost.contains(tp)) {
                assertThatThrownBy(() -> engine.partition(tp))
                        .isInstanceOf(StorageException.class)
                        .hasMessageContaining("offline");
                assertThat(engine.inOfflineLogDir(tp)).isTrue();
            } else {
                assertThat(engine.partitionState(tp).highWatermark()).isGreaterThan(acked.get(tp));
                engine.partition(tp)
                        .append(TestBatches.batch(1, 1_000L), Acks.ALL, -1)
                        .get(10, TimeUnit.SECONDS);
            }
        }
    }
}
