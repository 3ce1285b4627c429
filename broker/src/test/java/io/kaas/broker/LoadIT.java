package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.kaas.storage.format.TopicConfig;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load: 200 loopback connections open at once (100 producing acks=all, 100 fetching) for a
 * bounded time over a real data dir, then every fetcher must have read every acknowledged record at
 * its acknowledged offset, with no error anywhere. Also: heap after a GC under {@link #HEAP_BOUND},
 * and no file descriptor leak across connection churn. Raw frames, not kafka-clients: 200 clients'
 * worth of client threads and buffers would measure the clients, not the broker.
 */
class LoadIT {
    private static final int PRODUCERS = 100;
    private static final int FETCHERS = 100;
    private static final int PARTITIONS = 8;
    private static final int RECORDS_PER_BATCH = 5;
    private static final int VALUE_BYTES = 100;
    /** Both bounds hold the run to ~15 s on two busy cores; whichever comes first ends a producer. */
    private static final Duration PRODUCE_FOR = Duration.ofSeconds(15);

    private static final int MAX_BATCHES_PER_PRODUCER = 200;
    /** What a run that reads everything back may not exceed in total, fetch drain included. */
    private static final Duration HARD_LIMIT = Duration.ofSeconds(60);
    /**
     * The broker's live heap after the run and a GC, test bookkeeping included (≈ 100 fetchers ×
     * ~12k offsets × 8 bytes ≈ 10 MiB). Netty's pooled buffers and the broker's maps are far below it;
     * a leak per request (20k+ requests) or per connection would not be.
     */
    private static final long HEAP_BOUND = 256L << 20;

    private static final int CHURN_CYCLES = 2_000;
    /**
     * fds the JVM may open or close by itself between two counts (a jar opened by lazy class loading,
     * surefire's channels); a leak of one per connection would show as thousands.
     */
    private static final int FD_SLACK = 8;

    @TempDir
    Path dir;

    /** One acknowledged batch: its base offset and the keys of its records. */
    private record Acked(int partition, long baseOffset, long[] keys) {}

    @Test
    void twoHundredConcurrentConnectionsLoseNoAcknowledgedRecord() throws Exception {
        Queue<String> errors = new ConcurrentLinkedQueue<>();
        Queue<Acked> acked = new ConcurrentLinkedQueue<>();
        AtomicLongArray finalHwm = new AtomicLongArray(PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            finalHwm.set(p, -1);
        }
        ExecutorService clients =
                Executors.newFixedThreadPool(PRODUCERS + FETCHERS, new DefaultThreadFactory("load-client"));
        try (CapturedLog log = new CapturedLog();
                TestBroker b = new TestBroker(dir)) {
            b.broker().engine().createTopic("load", PARTITIONS, TopicConfig.EMPTY);
            int port = b.broker().boundPort();
            CountDownLatch connected = new CountDownLatch(PRODUCERS + FETCHERS);
            CountDownLatch go = new CountDownLatch(1);
            long start = System.nanoTime();
            long produceUntil = start + PRODUCE_FOR.toNanos();
            long hardDeadline = start + HARD_LIMIT.toNanos();

            List<Future<?>> producers = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                int id = i;
                producers.add(clients.submit(() -> produce(port, id, connected, go, produceUntil, acked, errors)));
            }
            List<Future<long[]>> fetchers = new ArrayList<>();
            for (int i = 0; i < FETCHERS; i++) {
                int partition = i % PARTITIONS;
                fetchers.add(
                        clients.submit(() -> fetch(port, partition, connected, go, finalHwm, hardDeadline, errors)));
            }
            assertThat(connected.await(30, TimeUnit.SECONDS))
                    .as("all 200 connections open at once")
                    .isTrue();
            go.countDown();
            for (Future<?> f : producers) {
                f.get(HARD_LIMIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (int p = 0; p < PARTITIONS; p++) {
                finalHwm.set(
                        p,
                        b.broker()
                                .engine()
                                .partition(new io.kaas.storage.TopicPartition("load", p))
                                .state()
                                .highWatermark());
            }
            List<long[]> consumed = new ArrayList<>();
            for (Future<long[]> f : fetchers) {
                consumed.add(f.get(HARD_LIMIT.toSeconds(), TimeUnit.SECONDS));
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);

            assertThat(errors).as("errors seen by clients").isEmpty();
            assertThat(acked).isNotEmpty();
            long ackedRecords = 0;
            for (Acked a : acked) {
                ackedRecords += a.keys().length;
                for (int f = a.partition(); f < FETCHERS; f += PARTITIONS) {
                    long[] seen = consumed.get(f);
                    for (int r = 0; r < a.keys().length; r++) {
                        long offset = a.baseOffset() + r;
                        assertThat(offset)
                                .as("fetcher %d read partition %d to its end", f, a.partition())
                                .isLessThan(seen.length);
                        assertThat(seen[(int) offset])
                                .as("fetcher %d, partition %d, offset %d", f, a.partition(), offset)
                                .isEqualTo(a.keys()[r]);
                    }
                }
            }
            for (int f = 0; f < FETCHERS; f++) {
                assertThat((long) consumed.get(f).length).isEqualTo(finalHwm.get(f % PARTITIONS));
            }
            assertThat(log.text()).as("broker log").doesNotContain(" ERROR ");

            long heap = usedHeapAfterGc();
            System.out.printf(
                    "load: %d connections, %d s, %d acks=all batches (%d records) acknowledged, read back by every fetcher of its partition (%d+);"
                            + " heap after GC %d MiB (bound %d MiB)%n",
                    PRODUCERS + FETCHERS,
                    seconds,
                    acked.size(),
                    ackedRecords,
                    FETCHERS / PARTITIONS,
                    heap >> 20,
                    HEAP_BOUND >> 20);
            assertThat(heap).isLessThan(HEAP_BOUND);
        } finally {
            clients.shutdownNow();
            assertThat(clients.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void connectionChurnDoesNotLeakFileDescriptors() throws Exception {
        Path fds = Path.of("/proc/self/fd");
        assumeThat(Files.isDirectory(fds)).as("needs Linux /proc").isTrue();
        try (TestBroker b = new TestBroker(dir)) {
            int port = b.broker().boundPort();
            churn(port, 50); // first connections load classes and open the transport's own fds
            long before = openFds(fds);
            churn(port, CHURN_CYCLES);
            // The broker closes its end when it reads our FIN, a moment after our close returns.
            await().atMost(Duration.ofSeconds(20)).until(() -> openFds(fds) <= before + FD_SLACK);
            System.out.printf(
                    "fd churn: %d connect/ApiVersions/close cycles, open fds %d before, %d after (slack %d)%n",
                    CHURN_CYCLES, before, openFds(fds), FD_SLACK);
        }
    }

    // ------------------------------------------------------------------------------------- clients

    private static Void produce(
            int port,
            int id,
            CountDownLatch connected,
            CountDownLatch go,
            long until,
            Queue<Acked> acked,
            Queue<String> errors)
            throws Exception {
        int partition = id % PARTITIONS;
        try (RawKafkaConnection c = new RawKafkaConnection(port)) {
            connected.countDown();
            go.await();
            for (int batch = 0; batch < MAX_BATCHES_PER_PRODUCER && System.nanoTime() < until; batch++) {
                long[] keys = new long[RECORDS_PER_BATCH];
                SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
                for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                    keys[r] = ((long) id << 32) | ((long) batch * RECORDS_PER_BATCH + r);
                    records[r] = new SimpleRecord(
                            ByteBuffer.allocate(VALUE_BYTES).putLong(0, keys[r]).array());
                }
                ProduceRequestData req =
                        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
                req.topicData()
                        .add(new ProduceRequestData.TopicProduceData()
                                .setName("load")
                                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                        .setIndex(partition)
                                        .setRecords(MemoryRecords.withRecords(Compression.NONE, records)))));
                ProduceResponseData r = c.roundTrip(ApiKeys.PRODUCE, (short) 11, req);
                ProduceResponseData.PartitionProduceResponse p =
                        r.responses().iterator().next().partitionResponses().get(0);
                if (p.errorCode() != 0) {
                    errors.add(
                            "producer " + id + " batch " + batch + ": error " + p.errorCode() + " " + p.errorMessage());
                    return null;
                }
                acked.add(new Acked(partition, p.baseOffset(), keys));
            }
        } catch (IOException | RuntimeException e) {
            errors.add("producer " + id + ": " + e);
        }
        return null;
    }

    /** Reads {@code partition} from 0 until producers are done and it reached their final high watermark. */
    private static long[] fetch(
            int port,
            int partition,
            CountDownLatch connected,
            CountDownLatch go,
            AtomicLongArray finalHwm,
            long hardDeadline,
            Queue<String> errors)
            throws Exception {
        long[] keys = new long[1024];
        int next = 0;
        try (RawKafkaConnection c = new RawKafkaConnection(port)) {
            connected.countDown();
            go.await();
            while (finalHwm.get(partition) < 0 || next < finalHwm.get(partition)) {
                if (System.nanoTime() > hardDeadline) {
                    errors.add("fetcher of partition " + partition + " stuck at offset " + next);
                    break;
                }
                FetchRequestData req = new FetchRequestData()
                        .setReplicaId(-1)
                        .setMaxWaitMs(100)
                        .setMinBytes(1)
                        .setMaxBytes(1 << 20);
                req.topics()
                        .add(new FetchRequestData.FetchTopic()
                                .setTopic("load")
                                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                        .setPartition(partition)
                                        .setFetchOffset(next)
                                        .setPartitionMaxBytes(64 << 10))));
                FetchResponseData r = c.roundTrip(ApiKeys.FETCH, (short) 12, req);
                FetchResponseData.PartitionData p =
                        r.responses().get(0).partitions().get(0);
                if (r.errorCode() != 0 || p.errorCode() != 0) {
                    errors.add("fetcher of partition " + partition + " at " + next + ": error " + r.errorCode() + "/"
                            + p.errorCode());
                    break;
                }
                for (MutableRecordBatch batch : ((MemoryRecords) p.records()).batches()) {
                    batch.ensureValid();
                    for (Record rec : batch) {
                        if (rec.offset() < next) {
                            continue; // the batch holding the fetch offset starts before it
                        }
                        if (rec.offset() != next) {
                            errors.add("partition " + partition + ": offset " + rec.offset() + " after " + (next - 1));
                            return Arrays.copyOf(keys, next);
                        }
                        if (next == keys.length) {
                            keys = Arrays.copyOf(keys, keys.length * 2);
                        }
                        keys[next++] = rec.value().getLong(0);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            errors.add("fetcher of partition " + partition + ": " + e);
        }
        return Arrays.copyOf(keys, next);
    }

    private static void churn(int port, int cycles) throws IOException {
        for (int i = 0; i < cycles; i++) {
            try (RawKafkaConnection c = new RawKafkaConnection(port)) {
                ApiVersionsResponseData v = c.roundTrip(
                        ApiKeys.API_VERSIONS,
                        (short) 3,
                        new ApiVersionsRequestData()
                                .setClientSoftwareName("churn")
                                .setClientSoftwareVersion("1"));
                assertThat(v.errorCode()).isZero();
            }
        }
    }

    private static long openFds(Path fds) {
        try (Stream<Path> s = Files.list(fds)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long usedHeapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }
}
