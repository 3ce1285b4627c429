package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an idle partition costs once loaded: no file descriptor and a bounded slice of heap. 1,000
 * partitions, each with a few closed segments (whose indexes stay on disk until a read needs them),
 * are closed cleanly and loaded again by a fresh engine; the heap it retains is measured after GC.
 */
class PartitionFootprintTest {
    private static final int TOPICS = 100;
    private static final int PER_TOPIC = 10;
    private static final int PARTITIONS = TOPICS * PER_TOPIC;
    /** Per idle partition, measured about 2.5 KiB (Partition, committer, state tables, view, segment objects). */
    private static final long MAX_BYTES_PER_PARTITION = 6 * 1024;

    @TempDir
    Path dir;

    @Test
    void anIdlePartitionHoldsNoFileAndAFewKilobytesOfHeap() throws Exception {
        EngineConfig config = EngineConfig.defaults(dir)
                .withSegmentBytes(1024)
                .withIndexIntervalBytes(64)
                .withMaxOpenFiles(64);
        try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
            for (int t = 0; t < TOPICS; t++) {
                engine.createTopic("t" + t, PER_TOPIC, TopicConfig.EMPTY);
            }
            // A few closed segments in some partitions: their indexes must not be loaded by an idle reopen.
            for (int p = 0; p < PER_TOPIC; p++) {
                PartitionLog log = engine.partition(new TopicPartition("t0", p));
                for (int i = 0; i < 40; i++) {
                    log.append(TestBatches.batch(3, 1_000L + i), Acks.ALL, -1).get();
                }
            }
        }
        long before = heapAfterGc();
        long fdsBefore = openFds();
        try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
            engine.whenReady().get(60, TimeUnit.SECONDS);
            long fds = openFds() - fdsBefore;
            assertThat(engine.loadProgress()).isEqualTo(new StorageEngine.LoadProgress(PARTITIONS, PARTITIONS, 0));
            long after = heapAfterGc();
            long perPartition = (after - before) / PARTITIONS;
            System.out.printf(
                    "PartitionFootprintTest: %d idle partitions: %d bytes of heap each, %d segment files open, "
                            + "%d more descriptors in the process%n",
                    PARTITIONS, perPartition, engine.files().openChannels(), fds);
            assertThat(fds)
                    .as("the data directory's lock, and a loader thread's leftovers at most")
                    .isLessThan(8);
            assertThat(engine.files().openChannels())
                    .as("an idle partition holds no file")
                    .isZero();
            assertThat(perPartition).isLessThan(MAX_BYTES_PER_PARTITION);
            assertThat(engine.partition(new TopicPartition("t0", 0))
                            .read(0, 1 << 20, 200)
                            .sizeInBytes())
                    .isPositive();
        }
    }

    private static long openFds() throws java.io.IOException {
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(last - used) < 64 * 1024) {
                return used;
            }
            last = used;
        }
        return last;
    }
}
