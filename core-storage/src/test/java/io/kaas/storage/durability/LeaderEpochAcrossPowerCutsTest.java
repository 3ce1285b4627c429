package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.FetchResult;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import io.kaas.storage.testfs.TornTail;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * {@code leader-epoch-checkpoint.json} across power cuts: a broker taking a shared partition over in
 * epoch 2 while the power goes at each fsync of the takeover in turn. Whatever the takeover got to, the next
 * owner (epoch 3) finds every write acknowledged in epoch 1 at its offset, and the checkpoint readable. Once the
 * takeover finished, the checkpoint's epoch 2 survives a cut: the fenced epoch-1 owner's late write past epoch
 * 2's start is discarded, the epoch-2 write at the same offset kept.
 */
class LeaderEpochAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int ACKED = 5;

    @Test
    void aPowerCutAtAnyFsyncOfATakeoverLosesNothingAndTheFinishedEpochFencesTheZombie() throws Exception {
        int cuts = 0;
        for (int k = 1; ; k++) {
            try (FaultyDisk disk = FaultyDisk.create(c -> c.withSegmentBytes(1024))) {
                DiskStorageEngine zombie = shared(disk);
                zombie.createTopic("t", 1, TopicConfig.EMPTY);
                zombie.takeOver(TP, 1);
                for (int i = 0; i < ACKED; i++) {
                    zombie.partition(TP)
                            .append(TestBatches.batch(1, 1_000L + i), Acks.ALL, -1)
                            .get(10, TimeUnit.SECONDS);
                }
                Scope partition = Scope.under(disk.partitionDir(TP));
                AtomicInteger count = new AtomicInteger();
                int cutAt = k;
                FsyncGate kth =
                        disk.fs().faults().hangFsync(p -> partition.includes(p) && count.incrementAndGet() == cutAt);
                DiskStorageEngine owner = shared(disk);
                CompletableFuture<Void> takeover = CompletableFuture.runAsync(() -> owner.takeOver(TP, 2));
                if (!hangs(kth, takeover)) {
                    takeover.get(30, TimeUnit.SECONDS);
                    assertThat(cuts).as("cut points tried").isGreaterThanOrEqualTo(3);
                    disk.fs().faults().clearFsyncHang();
                    // Epoch 2 writes at offset 5; the fenced epoch-1 owner, unaware, writes on in its own segment.
                    owner.partition(TP)
                            .append(TestBatches.batch(1, 2_000L), Acks.ALL, -1)
                            .get(10, TimeUnit.SECONDS);
                    zombie.partition(TP)
                            .append(TestBatches.batch(1, 3_000L), Acks.ALL, -1)
                            .get(10, TimeUnit.SECONDS);
                    disk.cutPower(TornTail.KEEP_RANDOM_PREFIX, k);
                    closeQuietly(zombie, owner);
                    List<long[]> batches = afterTheCut(disk);
                    assertThat(batches).hasSize(ACKED + 1);
                    assertThat(batches.get(ACKED))
                            .as("offset 5 is epoch 2's, never the zombie's")
                            .containsExactly(ACKED, 2, 2_000L);
                    return;
                }
                cuts++;
                disk.cutPower(TornTail.KEEP_RANDOM_PREFIX, k);
                takeover.handle((v, e) -> null).get(30, TimeUnit.SECONDS);
                closeQuietly(zombie, owner);
                assertThat(afterTheCut(disk))
                        .as("cut at fsync %d of the takeover", k)
                        .hasSize(ACKED);
            }
        }
    }

    private static DiskStorageEngine shared(FaultyDisk disk) {
        return DiskStorageEngine.shared(disk.config(), EngineObserver.NONE);
    }

    /** Whether the takeover hung at the chosen fsync (false: it finished without reaching it). */
    private static boolean hangs(FsyncGate gate, CompletableFuture<Void> takeover) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !takeover.isDone()) {
            try {
                gate.awaitBlocked(1, Duration.ofMillis(20));
                return true;
            } catch (TimeoutException notYet) {
                // poll again
            }
        }
        return gate.blockedCount() > 0;
    }

    private static void closeQuietly(DiskStorageEngine... engines) {
        for (DiskStorageEngine e : engines) {
            try {
                e.closeFenced();
                e.close();
            } catch (RuntimeException expected) {
                // it lives in the dead world
            }
        }
    }

    /**
     * The next owner (epoch 3) in the rebooted world: every batch readable from 0 as (offset, epoch, timestamp),
     * each epoch-1 one acknowledged before the takeover at its offset; the checkpoint ends with epoch 3 at the end.
     */
    private static List<long[]> afterTheCut(FaultyDisk disk) throws Exception {
        try (DiskStorageEngine next = shared(disk)) {
            next.takeOver(TP, 3);
            List<long[]> out = new ArrayList<>();
            long hw = next.partition(TP).state().highWatermark();
            long offset = 0;
            while (offset < hw) {
                FetchResult r = next.partition(TP).read(offset, 1 << 20, Long.MAX_VALUE);
                for (RecordBatch b : MemoryRecords.readableRecords(r.records()).batches()) {
                    b.ensureValid();
                    out.add(new long[] {b.baseOffset(), b.partitionLeaderEpoch(), b.maxTimestamp()});
                    offset = b.nextOffset();
                }
            }
            for (int i = 0; i < ACKED; i++) {
                assertThat(out.get(i)).as("acknowledged in epoch 1").containsExactly(i, 1, 1_000L + i);
            }
            LeaderEpochCheckpoint epochs = StateJson.read(
                            disk.partitionDir(TP).resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class)
                    .orElseThrow();
            assertThat(epochs.latestEpoch()).isEqualTo(3);
            assertThat(epochs.endOf(2)).isEqualTo(hw);
            return out;
        }
    }
}
