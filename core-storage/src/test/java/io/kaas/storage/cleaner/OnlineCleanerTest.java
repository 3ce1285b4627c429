package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.Acks;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The engine's cleaner on a live partition: appends go on, readers walk the log from offset 0 again and
 * again while groups are swapped under them, and every record a reader ever sees is the one written at
 * its offset (CRC-checked, decoded by kafka-clients). After the passes, each key's latest value is the
 * one left, and a reopen finds the files as the engine left them (recovery changes nothing).
 */
class OnlineCleanerTest {
    private static final TopicPartition TP = new TopicPartition("c", 0);
    private static final TopicConfig COMPACTED =
            new TopicConfig(null, null, 4096L, null, "compact", null, 60_000L, null);

    @Test
    void readersNeverSeeAWrongRecordWhileGroupsAreSwappedUnderThem() throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path data = fs.getPath("/data");
            EngineConfig config = EngineConfig.defaults(data).withCleaner(CleanerSettings.OFF);
            Map<Long, String> written = new ConcurrentHashMap<>();
            Map<String, Long> latest = new HashMap<>();
            AtomicLong end = new AtomicLong();
            try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
                engine.createTopic("c", 1, COMPACTED);
                PartitionLog log = engine.partition(TP);
                Random random = new Random(3);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong reads = new AtomicLong();
                CompletableFuture<Void> reader = new CompletableFuture<>();
                Thread readerThread = new Thread(
                        () -> {
                            try {
                                while (!stop.get()) {
                                    readAll(log, end.get(), written);
                                    reads.incrementAndGet();
                                }
                                reader.complete(null);
                            } catch (Throwable t) {
                                reader.completeExceptionally(t);
                            }
                        },
                        "online-cleaner-test-reader");
                readerThread.setDaemon(true);
                readerThread.start();
                int cleaned = 0;
                for (int round = 0; round < 30; round++) {
                    for (int b = 0; b < 20; b++) {
                        append(log, random, written, latest, end);
                    }
                    cleaned += engine.runCleaner();
                }
                long before = reads.get();
                try {
                    // Or the reader ended: it only ends on a failure, which reader.get() then reports.
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> reads.get() > before + 2 || reader.isDone());
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    stop.set(true);
                    throw new AssertionError(
                            "the reader made no progress (" + reads.get() + " reads); it is at "
                                    + java.util.Arrays.toString(readerThread.getStackTrace()),
                            e);
                }
                stop.set(true);
                reader.get(30, TimeUnit.SECONDS);
                assertThat(cleaned).as("passes that cleaned something").isGreaterThan(3);
                assertLatest(log, end.get(), written, latest);
            }
            try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
                io.kaas.storage.Partition log = engine.openPartition(TP);
                assertThat(log.openReport().actions())
                        .as("recovery finds the files as the engine left them")
                        .isEmpty();
                assertLatest(log, end.get(), written, latest);
            }
        }
    }

    private static void append(
            PartitionLog log, Random random, Map<Long, String> written, Map<String, Long> latest, AtomicLong end)
            throws Exception {
        int n = 1 + random.nextInt(4);
        SimpleRecord[] records = new SimpleRecord[n];
        String[] keys = new String[n];
        String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "k" + random.nextInt(20);
            values[i] = "v" + random.nextLong() + "x".repeat(random.nextInt(100));
            records[i] = new SimpleRecord(System.currentTimeMillis(), bytes(keys[i]), bytes(values[i]));
        }
        Compression codec =
                random.nextBoolean() ? Compression.NONE : Compression.lz4().build();
        ByteBuffer batch = MemoryRecords.withRecords(0, codec, records).buffer();
        long base = log.append(batch, Acks.ALL, -1).get(10, TimeUnit.SECONDS).baseOffset();
        for (int i = 0; i < n; i++) {
            written.put(base + i, keys[i] + "=" + values[i]);
            latest.put(keys[i], base + i);
        }
        end.set(base + n);
    }

    /** Reads [0, end) batch by batch; every record must be the one written at its offset. */
    private static Map<String, Long> readAll(PartitionLog log, long end, Map<Long, String> written) {
        Map<String, Long> seen = new HashMap<>();
        long next = 0;
        while (next < end) {
            long before = next;
            FetchResult r = log.read(next, 64 * 1024, end);
            if (r.sizeInBytes() == 0) {
                break;
            }
            for (MutableRecordBatch b :
                    MemoryRecords.readableRecords(r.records()).batches()) {
                b.ensureValid();
                for (Record rec : b) {
                    String kv = str(rec.key()) + "=" + str(rec.value());
                    assertThat(kv).as("record at offset %d", rec.offset()).isEqualTo(written.get(rec.offset()));
                    seen.put(str(rec.key()), rec.offset());
                }
                next = b.nextOffset();
            }
            // A read returns the batches from the one holding its offset on: one that moved nothing would loop for
            // ever.
            assertThat(next).as("the read at offset %d moved past it", before).isGreaterThan(before);
        }
        return seen;
    }

    private static void assertLatest(PartitionLog log, long end, Map<Long, String> written, Map<String, Long> latest) {
        Map<String, Long> seen = readAll(log, end, written);
        assertThat(seen).isEqualTo(latest);
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
