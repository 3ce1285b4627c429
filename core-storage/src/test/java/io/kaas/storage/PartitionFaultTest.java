package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.testfs.DiskFullMode;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sick disks, through the fault-injecting filesystem: fail fast and visibly, never acknowledge a lie. */
class PartitionFaultTest {
    static final TopicPartition T0 = new TopicPartition("t", 0);
    static final TopicPartition T1 = new TopicPartition("t", 1);

    FaultyDisk disk;
    FaultyFileSystem fs;
    DiskStorageEngine engine;
    FsyncGate gate;

    @BeforeEach
    void setUp() throws Exception {
        disk = FaultyDisk.create(c -> c.withFsyncTimeout(Duration.ofMillis(300)));
        fs = disk.fs();
        engine = disk.open();
        engine.createTopic("t", 2, TopicConfig.EMPTY);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (gate != null) {
            gate.release();
        }
        disk.closeEngineQuietly(); // a failed partition or a dead world after a power cut
        disk.close();
    }

    Path dirOf(TopicPartition tp) {
        return disk.partitionDir(tp);
    }

    static StorageException.Kind kindOf(Throwable t) {
        while (t != null && !(t instanceof StorageException)) {
            t = t.getCause();
        }
        return t == null ? null : ((StorageException) t).kind();
    }

    @Test
    void anFsyncErrorIsStickyAndNothingUnsyncedIsAcknowledged() throws Exception {
        PartitionLog p = engine.partition(T0);
        long acked = p.append(TestBatches.batch(2, 1), Acks.ALL, -1).get().lastOffset();
        fs.faults().failFsync(Scope.under(dirOf(T0)), Repeat.ALWAYS);
        CompletableFuture<AppendResult> failed = p.append(TestBatches.batch(2, 1), Acks.ALL, -1);
        assertThatThrownBy(failed::get).satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.IO));
        // Sticky: even once the disk is healthy again, this partition refuses until reopened.
        fs.faults().clearAll();
        assertThatThrownBy(
                        () -> p.append(TestBatches.batch(1, 1), Acks.LEADER, -1).get())
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.IO));
        // The other partition never noticed.
        assertThat(engine.partition(T1)
                        .append(TestBatches.batch(1, 1), Acks.ALL, -1)
                        .get()
                        .baseOffset())
                .isZero();
        // Power cut: what was acknowledged survives.
        engine = disk.powerCutAndReopen();
        fs = disk.fs();
        assertThat(engine.partition(T0).state().highWatermark()).isGreaterThan(acked);
    }

    @Test
    void aHungFsyncTripsTheWatchdogAndOnlyThatPartitionStalls() throws Exception {
        PartitionLog p = engine.partition(T0);
        PartitionLog other = engine.partition(T1);
        gate = fs.faults().hangFsync(Scope.under(dirOf(T0)));
        long start = System.nanoTime();
        CompletableFuture<AppendResult> hung = p.append(TestBatches.batch(1, 1), Acks.ALL, -1);
        assertThatThrownBy(() -> hung.get(10, TimeUnit.SECONDS))
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.STALLED));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waitedMs).as("watchdog fires at the configured 300 ms").isBetween(250L, 5_000L);
        // Fails fast now, without waiting on the disk.
        assertThatThrownBy(() -> p.append(TestBatches.batch(1, 1), Acks.ALL, -1).get(1, TimeUnit.SECONDS))
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.STALLED));
        assertThat(p.state().highWatermark()).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            other.append(TestBatches.batch(1, 1), Acks.ALL, -1).get(5, TimeUnit.SECONDS);
        }
        assertThat(other.state().highWatermark()).isEqualTo(5);
    }

    @Test
    void diskFullMidAppendLeavesNoPartialBatchAndRecoversWhenSpaceReturns() throws Exception {
        PartitionLog p = engine.partition(T0);
        p.append(TestBatches.batch(3, 1), Acks.ALL, -1).get();
        Path log = dirOf(T0).resolve("00000000-00000000000000000000.log");
        long size = Files.size(log);
        fs.faults().diskFullAfter(20, DiskFullMode.WRITE_PREFIX_THEN_THROW);
        assertThatThrownBy(
                        () -> p.append(TestBatches.batch(50, 1), Acks.ALL, -1).get())
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.IO))
                .hasMessageContaining("No space left");
        assertThat(Files.size(log)).isEqualTo(size);
        assertThat(p.state().highWatermark()).isEqualTo(3);
        assertThat(PartitionTest.baseOffsets(p.read(0, 1 << 20, Long.MAX_VALUE).records()))
                .containsExactly(0L);
        fs.faults().spaceReturns();
        assertThat(p.append(TestBatches.batch(2, 1), Acks.ALL, -1).get().baseOffset())
                .isEqualTo(3);
        engine = disk.reopen();
        assertThat(engine.partition(T0).state().highWatermark()).isEqualTo(5);
    }

    @Test
    void aDeleteRecordsWhoseManifestCannotBeMadeDurableChangesNothing() throws Exception {
        PartitionLog p = engine.partition(T0);
        p.append(TestBatches.batch(5, 1), Acks.ALL, -1).get();
        fs.faults().failFsync(Scope.fileNameEndsWith(".tmp"), Repeat.ONCE);
        assertThatThrownBy(() -> p.deleteRecords(3))
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.IO));
        assertThat(p.state().logStartOffset()).isZero();
        assertThat(p.read(0, 100, Long.MAX_VALUE).records().remaining()).isPositive();
        assertThat(p.deleteRecords(3)).isEqualTo(3);
    }

    @Test
    void shortWritesAreCompletedNotTorn() throws Exception {
        PartitionLog p = engine.partition(T0);
        fs.faults().shortWriteOnce(Scope.fileNameEndsWith(".log"), 17);
        p.append(TestBatches.batch(10, 1), Acks.ALL, -1).get();
        engine = disk.reopen();
        assertThat(engine.partition(T0).state().highWatermark()).isEqualTo(10);
        assertThat(engine.partition(T0)
                        .read(0, 1 << 20, Long.MAX_VALUE)
                        .records()
                        .remaining())
                .isPositive();
    }

    @Test
    void aReadErrorFailsThatPartitionsFetchOnly() throws Exception {
        engine.partition(T0).append(TestBatches.batch(1, 1), Acks.ALL, -1).get();
        engine.partition(T1).append(TestBatches.batch(1, 1), Acks.ALL, -1).get();
        fs.faults().failReads(Scope.under(dirOf(T0)), Repeat.ALWAYS);
        assertThatThrownBy(() -> engine.partition(T0).read(0, 100, Long.MAX_VALUE))
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.IO));
        assertThat(engine.partition(T1).read(0, 100, Long.MAX_VALUE).records().remaining())
                .isPositive();
    }
    /**
     * The committer pool is bounded: a drain stuck in an fsync past the watchdog gets a replacement
     * thread, so the other partitions keep every thread they had, and gives it back if the fsync returns.
     */
    @Test
    void aHungFsyncGetsAReplacementCommitterThreadUntilItReturns() throws Exception {
        EngineExecutors executors = engine.executors();
        assertThat(executors.committerThreads()).isEqualTo(EngineExecutors.COMMITTER_THREADS);
        PartitionLog p = engine.partition(T0);
        gate = fs.faults().hangFsync(Scope.under(dirOf(T0)));
        CompletableFuture<AppendResult> hung = p.append(TestBatches.batch(1, 1), Acks.ALL, -1);
        assertThatThrownBy(() -> hung.get(10, TimeUnit.SECONDS))
                .satisfies(e -> assertThat(kindOf(e)).isEqualTo(StorageException.Kind.STALLED));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> executors.committerThreads() == EngineExecutors.COMMITTER_THREADS + 1);
        gate.release();
        gate = null;
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> executors.committerThreads() == EngineExecutors.COMMITTER_THREADS);
        engine.partition(T1).append(TestBatches.batch(1, 1), Acks.ALL, -1).get(5, TimeUnit.SECONDS);
    }

    /** Deterministic group commit: while one fsync is held, 15 more appenders pile up; one fsync serves them all. */
    @Test
    void oneFsyncServesEveryoneWhoArrivedWhileTheLastWasInFlight() throws Exception {
        Partition p = engine.openPartition(T0);
        gate = fs.faults().hangFsync(Scope.fileNameEndsWith(".log"));
        long before = p.fsyncCount();
        List<CompletableFuture<AppendResult>> acks = new ArrayList<>();
        acks.add(p.append(TestBatches.batch(1, 1), Acks.ALL, -1));
        gate.awaitBlocked(1, Duration.ofSeconds(5));
        for (int i = 1; i < 16; i++) {
            acks.add(p.append(TestBatches.batch(1, 1), Acks.ALL, -1));
        }
        assertThat(acks).noneMatch(CompletableFuture::isDone);
        gate.release();
        gate = null;
        for (CompletableFuture<AppendResult> a : acks) {
            a.get(5, TimeUnit.SECONDS);
        }
        // Each fsync is counted before its waiters complete, so the count is final here.
        assertThat(p.fsyncCount() - before)
                .as("16 appends, 2 fsyncs: 0.125 per append")
                .isEqualTo(2);
    }
}
