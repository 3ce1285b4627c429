package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.MoveSource;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.PartitionMove;
import io.kaas.storage.layout.PoolContents;
import io.kaas.storage.layout.TopicDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moving a partition between the log dirs of a disk engine (AlterReplicaLogDirs): online under acks=all appends,
 * callers holding the old partition handed to the new one, and the states a crash can leave read back at start by the
 * one rule ({@link PartitionMove}), the offline scan agreeing.
 */
class LogDirMoveTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path root;

    private LogDirs pool() {
        return LogDirs.parse(root.resolve("d0") + "," + root.resolve("d1"));
    }

    private DiskStorageEngine open() {
        LogDirs pool = pool();
        return new DiskStorageEngine(
                EngineConfig.defaults(pool.home().path()).withLogDirs(pool).withSegmentBytes(64 * 1024));
    }

    private static long fill(StorageEngine engine, int batches) throws Exception {
        PartitionLog log = engine.partition(TP);
        for (int i = 0; i < batches; i++) {
            log.append(TestBatches.sized(1000), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        }
        return log.state().highWatermark();
    }

    private static void assertReadable(PartitionLog log, long upTo) {
        for (long o = 0; o < upTo; o++) {
            assertThat(log.read(o, 1 << 16, Long.MAX_VALUE).records().remaining())
                    .as("offset %d", o)
                    .isPositive();
        }
    }

    private static List<String> children(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aPartitionMovesUnderAcksAllAppendsAndTheOldHandleGoesOnInTheNewDir() throws Exception {
        try (DiskStorageEngine engine = open()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            fill(engine, 300);
            PartitionLog held = engine.partition(TP);
            LogDir d1 = engine.logDirs().get(1);
            AtomicBoolean stop = new AtomicBoolean();
            List<Long> acked = new ArrayList<>();
            CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    // The handle taken before the move: appends through it must land wherever the partition is.
                    acked.add(held.append(TestBatches.sized(1000), Acks.ALL, -1)
                            .join()
                            .baseOffset());
                }
            });
            engine.moveToLogDir(TP, d1).get(30, TimeUnit.SECONDS);
            stop.set(true);
            load.get(30, TimeUnit.SECONDS);
            assertThat(engine.logDirOf(TP)).contains(d1);
            assertThat(engine.futureReplica(TP)).isEmpty();
            assertThat(children(root.resolve("d0/t"))).isEmpty();
            assertThat(children(root.resolve("d1/t"))).containsExactly("0");
            assertThat(root.resolve("d1/t/0").resolve(MoveSource.FILE_NAME)).doesNotExist();
            long end = held.state().highWatermark();
            assertThat(engine.partition(TP).state().highWatermark()).isEqualTo(end);
            assertThat(acked).isNotEmpty().allMatch(o -> o < end);
            assertReadable(held, end);
            // A move to where it is: nothing to do.
            engine.moveToLogDir(TP, d1).get(10, TimeUnit.SECONDS);
        }
        try (DiskStorageEngine engine = open()) {
            assertThat(engine.logDirOf(TP)).contains(engine.logDirs().get(1));
            assertReadable(engine.partition(TP), engine.partition(TP).state().highWatermark());
        }
    }

    @Test
    void aCopyThatDidNotCommitIsRemovedAtStartAndThePartitionStaysComplete() throws Exception {
        long end;
        try (DiskStorageEngine engine = open()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            end = fill(engine, 100);
        }
        Path staging = PartitionMove.future(root.resolve("d1"), "t", 0);
        Files.createDirectories(staging);
        Files.copy(
                root.resolve("d0/t/0/00000000-00000000000000000000.log"),
                staging.resolve("00000000-00000000000000000000.log"));
        assertThat(PartitionFinder.find(root.resolve("d1")))
                .as("never a partition to the offline tools")
                .isEmpty();
        try (DiskStorageEngine engine = open()) {
            assertThat(staging).doesNotExist();
            assertThat(engine.logDirOf(TP)).contains(engine.logDirs().get(0));
            assertThat(engine.partition(TP).state().highWatermark()).isEqualTo(end);
        }
    }

    @Test
    void aCommittedCopyWinsOverItsOldCopyOfflineAndAtStart() throws Exception {
        long end;
        try (DiskStorageEngine engine = open()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            end = fill(engine, 100);
        }
        // As a kill between the commit (step 3) and the old copy's removal leaves it.
        Path copy = TopicDir.partition(root.resolve("d1"), "t", 0);
        Files.createDirectories(copy.getParent());
        Files.copy(root.resolve("d0/t/.topic-id.json"), copy.getParent().resolve(".topic-id.json"));
        try (Stream<Path> files = Files.list(root.resolve("d0/t/0"))) {
            Files.createDirectories(copy);
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        StateJson.write(
                copy.resolve(MoveSource.FILE_NAME),
                new MoveSource(MoveSource.VERSION, root.resolve("d0").toString()));
        assertThat(PoolContents.scan(pool()).dirOf("t", 0).path()).isEqualTo(root.resolve("d1"));
        try (DiskStorageEngine engine = open()) {
            assertThat(engine.logDirOf(TP)).contains(engine.logDirs().get(1));
            assertThat(root.resolve("d0/t/0")).doesNotExist();
            assertThat(copy.resolve(MoveSource.FILE_NAME)).doesNotExist();
            assertThat(engine.partition(TP).state().highWatermark()).isEqualTo(end);
            assertReadable(engine.partition(TP), end);
        }
    }

    @Test
    void twoCopiesWithNoMoveBetweenThemAreStillRefused() throws Exception {
        try (DiskStorageEngine engine = open()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            fill(engine, 10);
        }
        Files.createDirectories(root.resolve("d1/t/0"));
        assertThatThrownBy(this::open).isInstanceOf(StorageException.class).hasMessageContaining("is in two log dirs");
    }
}
