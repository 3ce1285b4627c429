package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.MoveSource;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PartitionMove;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import io.kaas.storage.testfs.TornTail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A log dir move (AlterReplicaLogDirs) cut by the power at each of its fsyncs in turn (the fsync hangs, the power
 * goes, so nothing after the previous fsync is durable): whatever the moment, the reopened engine finds the
 * partition in exactly one dir, complete (every acknowledged record), with no staging copy, old copy or move mark
 * left, and a move started again finishes.
 */
class LogDirMoveAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int BATCHES = 20;

    private static FaultyDisk disk() throws Exception {
        return FaultyDisk.create(c -> c.withSegmentBytes(2048)
                .withLogDirs(new LogDirs(
                        List.of(LogDir.of(c.dataDir()), LogDir.of(c.dataDir().resolveSibling("data1"))))));
    }

    @Test
    void aMoveCutAtAnyFsyncLeavesOneCompleteCopy() throws Exception {
        int cuts = 0;
        for (int k = 1; ; k++) {
            try (FaultyDisk disk = disk()) {
                DiskStorageEngine engine = disk.open();
                engine.createTopic("t", 1, TopicConfig.EMPTY);
                PartitionLog log = engine.partition(TP);
                for (int i = 0; i < BATCHES; i++) {
                    log.append(TestBatches.batch(3, 1_000L + i), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
                }
                long acked = log.state().highWatermark();
                LogDir from = engine.logDirOf(TP).orElseThrow();
                LogDir to = engine.logDirs().get(1);
                assertThat(from).isEqualTo(engine.logDirs().get(0));
                FsyncGate gate = disk.fs().faults().hangFsync(kth(k));
                CompletableFuture<Void> move = engine.moveToLogDir(TP, to);
                if (!blocksOrCompletes(gate, move)) {
                    assertThat(cuts).as("a move fsyncs more than a few times").isGreaterThan(5);
                    disk.fs().faults().clearFsyncHang();
                    assertOneCompleteCopy(engine, disk, to, acked);
                    return;
                }
                cuts++;
                disk.cutPower(TornTail.DROP, k);
                gate.release();
                disk.closeEngineQuietly();
                DiskStorageEngine after = disk.open();
                LogDir at = after.logDirOf(TP).orElseThrow();
                assertOneCompleteCopy(after, disk, at, acked);
                LogDir other = after.logDirs().get(at.equals(after.logDirs().get(0)) ? 1 : 0);
                after.moveToLogDir(TP, other).get(30, TimeUnit.SECONDS);
                assertOneCompleteCopy(after, disk, other, acked);
            }
        }
    }

    private static void assertOneCompleteCopy(DiskStorageEngine engine, FaultyDisk disk, LogDir at, long acked)
            throws Exception {
        assertThat(engine.logDirOf(TP)).contains(at);
        for (LogDir d : engine.logDirs()) {
            Path dir = d.path();
            Path topic = dir.resolve(TP.topic());
            List<String> children;
            try (Stream<Path> s = Files.isDirectory(topic) ? Files.list(topic) : Stream.empty()) {
                children = s.filter(Files::isDirectory)
                        .map(p -> p.getFileName().toString())
                        .toList();
            }
            if (d.equals(at)) {
                assertThat(children).as("%s", d).containsExactly("0");
                assertThat(topic.resolve("0").resolve(MoveSource.FILE_NAME)).doesNotExist();
            } else {
                assertThat(children).as("%s", d).isEmpty();
            }
            assertThat(children).noneMatch(PartitionMove::isMoveLeftover);
        }
        PartitionLog log = engine.partition(TP);
        assertThat(log.state().highWatermark()).as("every acknowledged record").isGreaterThanOrEqualTo(acked);
        for (long o = 0; o < acked; o++) {
            FetchResult r = log.read(o, 1 << 16, Long.MAX_VALUE);
            assertThat(r.records().remaining()).as("offset %d", o).isPositive();
        }
    }

    /** Holds only the k-th fsync from now on, wherever it is. */
    private static Scope kth(int k) {
        AtomicInteger seen = new AtomicInteger();
        return p -> seen.incrementAndGet() == k;
    }

    /** True when the move hangs at the gate, false when it finished first. */
    private static boolean blocksOrCompletes(FsyncGate gate, CompletableFuture<Void> move) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (gate.blockedCount() > 0) {
                return true;
            }
            if (move.isDone()) {
                move.get();
                return gate.blockedCount() > 0;
            }
            try {
                gate.awaitBlocked(1, Duration.ofMillis(20));
                return true;
            } catch (TimeoutException notYet) {
                // look at the move again
            }
        }
        throw new AssertionError("the move neither finished nor reached an fsync");
    }
}
