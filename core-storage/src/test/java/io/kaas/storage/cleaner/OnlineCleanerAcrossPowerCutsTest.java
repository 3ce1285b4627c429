package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import io.kaas.storage.testfs.TornTail;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * The engine's cleaner and a power cut at each fsync of its pass in turn: the reopened partition
 * (recovery finishing or discarding the swap) still holds every key's latest value at its offset, and
 * every record left is the one written at its offset.
 */
class OnlineCleanerAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("c", 0);
    private static final TopicConfig COMPACTED =
            new TopicConfig(null, null, 2048L, null, "compact", null, 60_000L, null);

    @Test
    void aPowerCutAtAnyFsyncOfAnOnlinePassLosesNoLatestValue() throws Exception {
        int cuts = 0;
        for (int k = 1; ; k++) {
            try (FaultyDisk disk = FaultyDisk.create(c -> c.withCleaner(CleanerSettings.OFF))) {
                disk.open().createTopic("c", 1, COMPACTED);
                PartitionLog log = disk.engine().partition(TP);
                Map<Long, String> written = new HashMap<>();
                Map<String, Long> latest = new HashMap<>();
                for (int i = 0; i < 120; i++) {
                    String key = "k" + (i % 9);
                    String value = "v" + i + "-" + "x".repeat(60);
                    ByteBuffer b = MemoryRecords.withRecords(
                                    0, Compression.NONE, new SimpleRecord(1_000L + i, bytes(key), bytes(value)))
                            .buffer();
                    long offset = log.append(b, Acks.ALL, -1)
                            .get(10, TimeUnit.SECONDS)
                            .baseOffset();
                    written.put(offset, key + "=" + value);
                    latest.put(key, offset);
                }
                long end = 120;
                Scope partition = Scope.under(disk.partitionDir(TP));
                AtomicInteger count = new AtomicInteger();
                int cutAt = k;
                FsyncGate kth =
                        disk.fs().faults().hangFsync(p -> partition.includes(p) && count.incrementAndGet() == cutAt);
                CompletableFuture<Integer> pass =
                        CompletableFuture.supplyAsync(() -> disk.engine().runCleaner());
                boolean hung = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && !pass.isDone()) {
                    if (kth.blockedCount() > 0) {
                        hung = true;
                        break;
                    }
                    try {
                        kth.awaitBlocked(1, Duration.ofMillis(20));
                        hung = true;
                        break;
                    } catch (java.util.concurrent.TimeoutException notYet) {
                        // poll again
                    }
                }
                if (!hung) {
                    assertThat(pass.get(30, TimeUnit.SECONDS))
                            .as("the pass cleaned the partition")
                            .isEqualTo(1);
                    assertThat(cuts).as("cut points tried").isGreaterThan(3);
                    disk.fs().faults().clearFsyncHang();
                    check(disk.engine().partition(TP), end, written, latest, true);
                    return;
                }
                cuts++;
                disk.powerCutAndReopen(TornTail.KEEP_RANDOM_PREFIX, k);
                pass.handle((r, e) -> null).get(30, TimeUnit.SECONDS);
                check(disk.engine().partition(TP), end, written, latest, false);
                try (var files = java.nio.file.Files.list(disk.partitionDir(TP))) {
                    assertThat(files.map(f -> f.getFileName().toString()))
                            .as("the reopen finished or discarded the swap")
                            .noneMatch(n -> n.endsWith(CleanerSwap.CLEANED_SUFFIX)
                                    || n.equals(io.kaas.storage.format.CleanerSwapIntent.FILE_NAME));
                }
            }
        }
    }

    /** Every record left is the one written at its offset; each key's latest is there (and alone, once fully cleaned). */
    private static void check(
            PartitionLog log, long end, Map<Long, String> written, Map<String, Long> latest, boolean cleaned) {
        Map<String, Long> last = new HashMap<>();
        Map<String, Integer> count = new HashMap<>();
        long next = 0;
        while (next < end) {
            FetchResult r = log.read(next, 1 << 20, end);
            if (r.sizeInBytes() == 0) {
                break;
            }
            for (MutableRecordBatch b :
                    MemoryRecords.readableRecords(r.records()).batches()) {
                b.ensureValid();
                for (Record rec : b) {
                    String kv = str(rec.key()) + "=" + str(rec.value());
                    assertThat(kv).as("offset %d", rec.offset()).isEqualTo(written.get(rec.offset()));
                    last.put(str(rec.key()), rec.offset());
                    count.merge(str(rec.key()), 1, Integer::sum);
                }
                next = b.nextOffset();
            }
        }
        assertThat(last).isEqualTo(latest);
        if (cleaned) {
            assertThat(count.values().stream().mapToInt(Integer::intValue).sum())
                    .as("records left after a full pass")
                    .isLessThan(written.size());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }
}
