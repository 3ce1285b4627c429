package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionLog#appendWithoutBlocking}, what a network event loop calls for acks=0/1: it appends
 * as {@link PartitionLog#append} does, or does nothing and says so (null) when appending could block
 * the caller, and it never runs an fsync on the calling thread. A hung fsync (the fault-injecting
 * filesystem) shows it: the caller is never caught in it.
 */
class AppendWithoutBlockingTest {
    static final TopicPartition T0 = new TopicPartition("t", 0);

    FaultyDisk disk;
    FsyncGate gate;

    @AfterEach
    void tearDown() throws Exception {
        if (gate != null) {
            gate.release();
        }
        disk.closeEngineQuietly();
        disk.close();
    }

    private DiskStorageEngine open(java.util.function.UnaryOperator<EngineConfig> tune) throws Exception {
        disk = FaultyDisk.create(c -> tune.apply(c.withFsyncTimeout(Duration.ofSeconds(60))));
        DiskStorageEngine engine = disk.open();
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        return engine;
    }

    /**
     * An append that must go through without blocking: a null (gave way, nothing written) is retried,
     * since a committer may hold the partition's lock for a moment, taking the flush target of the last append.
     */
    private static CompletableFuture<AppendResult> appendedWithoutBlocking(
            PartitionLog p, java.nio.ByteBuffer batch, Acks acks) {
        return await().atMost(Duration.ofSeconds(10))
                .until(() -> p.appendWithoutBlocking(batch.duplicate(), acks, -1), java.util.Objects::nonNull);
    }

    @Test
    void appendsAsAppendDoesWhenNothingBlocks() throws Exception {
        PartitionLog p = open(c -> c).partition(T0);
        // A fresh segment's log has no open channel yet: opening one is left to a thread that may block.
        assertThat(p.appendWithoutBlocking(TestBatches.batch(3, 1_000L), Acks.LEADER, -1))
                .isNull();
        assertThat(p.state().highWatermark()).isZero();
        p.append(TestBatches.batch(1, 1_000L), Acks.LEADER, -1).get();
        CompletableFuture<AppendResult> first = appendedWithoutBlocking(p, TestBatches.batch(3, 1_000L), Acks.LEADER);
        assertThat(first).isDone();
        assertThat(first.get().baseOffset()).isEqualTo(1);
        assertThat(first.get().lastOffset()).isEqualTo(3);
        CompletableFuture<AppendResult> second = appendedWithoutBlocking(p, TestBatches.batch(2, 1_000L), Acks.NONE);
        assertThat(second.get().baseOffset()).isEqualTo(4);
        assertThat(p.state().highWatermark()).isEqualTo(6);
        assertThat(p.read(0, 1 << 20, 6).sizeInBytes()).isPositive();
    }

    @Test
    void aDueRollIsLeftToABlockingThreadWithNothingWritten() throws Exception {
        PartitionLog p = open(c -> c.withSegmentBytes(1_500)).partition(T0);
        p.append(TestBatches.sized(1_000), Acks.LEADER, -1).get();
        PartitionState before = p.state();
        assertThat(p.appendWithoutBlocking(TestBatches.sized(1_000), Acks.LEADER, -1))
                .as("a roll is due")
                .isNull();
        assertThat(p.state()).isEqualTo(before);
        // The blocking path rolls and appends the same bytes at the next offset.
        assertThat(p.append(TestBatches.sized(1_000), Acks.LEADER, -1).get().baseOffset())
                .isEqualTo(1);
        // Past the roll, the new segment takes appends without blocking again.
        assertThat(appendedWithoutBlocking(p, TestBatches.batch(1, 1_000L), Acks.LEADER)
                        .get()
                        .baseOffset())
                .isEqualTo(2);
    }

    @Test
    void neverWaitsForTheLockWhileARollFsyncsUnderIt() throws Exception {
        // No count-based flush: the only .log fsync is the roll's seal of the old segment.
        PartitionLog p = open(c -> c.withSegmentBytes(1_500).withFlushIntervalMessages(Long.MAX_VALUE))
                .partition(T0);
        p.append(TestBatches.sized(1_000), Acks.LEADER, -1).get();
        gate = disk.fs().faults().hangFsync(Scope.fileNameEndsWith(".log"));
        CompletableFuture<AppendResult> rolling = CompletableFuture.supplyAsync(
                () -> p.append(TestBatches.sized(1_000), Acks.LEADER, -1).join());
        gate.awaitBlocked(1, Duration.ofSeconds(10));
        // The roll holds the partition's lock inside a hung fsync: the non-blocking append gives way at once.
        CompletableFuture<AppendResult> meanwhile = assertTimeoutPreemptively(
                Duration.ofSeconds(2), () -> p.appendWithoutBlocking(TestBatches.batch(1, 1_000L), Acks.LEADER, -1));
        assertThat(meanwhile).isNull();
        assertThat(rolling).isNotDone();
        gate.release();
        gate = null;
        assertThat(rolling.get(10, TimeUnit.SECONDS).baseOffset()).isEqualTo(1);
        assertThat(appendedWithoutBlocking(p, TestBatches.batch(1, 1_000L), Acks.LEADER)
                        .get()
                        .baseOffset())
                .isEqualTo(2);
    }

    @Test
    void aFlushItAsksForRunsOnACommitterNeverOnTheCaller() throws Exception {
        // Flush interval 1 (the default): every append asks for an fsync; every fsync of the partition hangs.
        DiskStorageEngine engine = open(c -> c);
        PartitionLog p = engine.partition(T0);
        p.append(TestBatches.batch(1, 1_000L), Acks.ALL, -1).get(); // opens the segment's channels
        gate = disk.fs().faults().hangFsync(Scope.under(disk.partitionDir(T0)));
        // A null is an append that gave way, nothing written: a committer held the lock for a moment to take its
        // flush target (how many give way depends on the scheduler, so each is tried again). None may block: the
        // whole run is bounded, and every one that went ahead is answered from the page cache, as on Apache, while
        // the fsync it asked for hangs on a committer.
        List<CompletableFuture<AppendResult>> appended = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            List<CompletableFuture<AppendResult>> out = new ArrayList<>();
            while (out.size() < 20) {
                CompletableFuture<AppendResult> f =
                        p.appendWithoutBlocking(TestBatches.batch(1, 1_000L), Acks.LEADER, -1);
                if (f != null) {
                    out.add(f);
                }
            }
            return out;
        });
        assertThat(appended).hasSize(20).allSatisfy(f -> assertThat(f).isCompleted());
        gate.awaitBlocked(1, Duration.ofSeconds(10));
        // acks=all is still answered only after its fsync, whichever thread appended it.
        CompletableFuture<AppendResult> all = appendedWithoutBlocking(p, TestBatches.batch(1, 1_000L), Acks.ALL);
        assertThat(all).isNotDone();
        gate.release();
        gate = null;
        assertThat(all.get(10, TimeUnit.SECONDS).baseOffset()).isEqualTo(1 + appended.size());
    }
}
