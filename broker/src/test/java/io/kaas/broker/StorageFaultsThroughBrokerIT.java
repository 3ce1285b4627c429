package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.DiskFullMode;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Storage faults seen from the wire: a real broker over a {@link DiskStorageEngine} on the
 * fault-injecting filesystem, real kafka-clients and raw frames on loopback. Each test breaks one
 * partition's disk and checks what its clients are told (KAFKA_STORAGE_ERROR), that nothing was
 * acknowledged that the disk does not hold, and that the other partitions never notice.
 */
class StorageFaultsThroughBrokerIT {
    /** Short, so the stall test takes a second; long enough that a healthy jimfs fsync never trips it. */
    private static final Duration FSYNC_TIMEOUT = Duration.ofMillis(500);

    private static final short PRODUCE_V = 11;
    private static final short FETCH_V = 12;

    private FaultyDisk disk;
    private KaasBroker broker;

    @BeforeEach
    void start() throws Exception {
        // The data directory exists durably before the broker starts, as an operator's would.
        disk = FaultyDisk.create(c -> c.withFsyncTimeout(FSYNC_TIMEOUT));
        broker = startBroker(disk);
    }

    @AfterEach
    void stop() throws Exception {
        stopQuietly(broker);
        disk.close();
    }

    /** The broker owns its engine (stop closes it); the disk lends only its current world and config. */
    private static KaasBroker startBroker(FaultyDisk disk) {
        StorageEngine engine = new DiskStorageEngine(disk.config());
        return new KaasBroker(BrokerConfig.forTest(disk.dataDir()).withRetentionCheckInterval(Duration.ZERO), engine)
                .start();
    }

    private static void stopQuietly(KaasBroker b) {
        try {
            b.stop();
        } catch (RuntimeException afterPowerCut) {
            // A broker whose filesystem lost power cannot write its clean-close state; that is the point.
        }
    }

    // ------------------------------------------------------------------------------------------ tests

    @Test
    void fsyncErrorFailsThatPartitionStickilyAndNothingUnsyncedWasAcknowledged() throws Exception {
        broker.engine().createTopic("t", 2, TopicConfig.EMPTY);
        Map<TopicPartition, Map<Long, String>> acked = new LinkedHashMap<>();
        TopicPartition t0 = new TopicPartition("t", 0);
        TopicPartition t1 = new TopicPartition("t", 1);
        try (CapturedLog log = new CapturedLog();
                RawKafkaConnection c = raw();
                KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                ackedRaw(c, t0, acked, "t0-before-" + i + "-a", "t0-before-" + i + "-b");
                ackedRaw(c, t1, acked, "t1-before-" + i);
            }
            for (int i = 0; i < 10; i++) {
                sendAcked(producer, t1, "t1-client-before-" + i, acked);
            }

            disk.fs().faults().failFsync(Scope.under(disk.dataDir().resolve("t/0")), Repeat.ALWAYS);
            assertThat(produceRaw(c, t0, "t0-never-acked").errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            // Sticky: a disk that failed an fsync is not trusted again until the partition is reopened.
            disk.fs().faults().clearFsyncFailure();
            ProduceResponseData.PartitionProduceResponse again = produceRaw(c, t0, "t0-after-fault");
            assertThat(again.errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(again.errorMessage()).contains("fsync");
            try (KafkaProducer<byte[], byte[]> noRetries = producer(
                    Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.RETRIES_CONFIG, 0))) {
                assertThatThrownBy(() ->
                                noRetries.send(record(t0, "t0-client-after")).get(20, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(KafkaStorageException.class);
            }
            // kafka-clients 4.x produces at v13, which names topics by id: the log line must still name it.
            assertThat(log.text()).contains("produce to t-0 from client producer-");

            // The other partition keeps acknowledging and serving.
            for (int i = 0; i < 10; i++) {
                sendAcked(producer, t1, "t1-client-after-" + i, acked);
                ackedRaw(c, t1, acked, "t1-raw-after-" + i);
            }
            assertThat(consume(t1, acked.get(t1).size()))
                    .containsExactlyElementsOf(acked.get(t1).values());
        }

        // Pull the power while the broker runs; reopen an engine on what the disk really holds.
        disk.cutPower();
        stopQuietly(broker);
        broker = startBroker(disk);
        for (Map.Entry<TopicPartition, Map<Long, String>> e : acked.entrySet()) {
            Map<Long, String> onDisk = readAll(broker.engine(), e.getKey());
            assertThat(onDisk).as("%s after the power cut", e.getKey()).containsAllEntriesOf(e.getValue());
        }
        // The batch that got KAFKA_STORAGE_ERROR was written but never fsynced: the cut took it, so the
        // broker told the truth by not acknowledging it.
        assertThat(readAll(broker.engine(), t0)).hasSize(acked.get(t0).size()).doesNotContainValue("t0-never-acked");
    }

    @Test
    void fsyncHangStallsThatPartitionAtTheWatchdogLatencyWhileOthersServe() throws Exception {
        broker.engine().createTopic("h", 2, TopicConfig.EMPTY);
        TopicPartition h0 = new TopicPartition("h", 0);
        TopicPartition h1 = new TopicPartition("h", 1);
        Map<TopicPartition, Map<Long, String>> acked = new LinkedHashMap<>();
        FsyncGate gate = null;
        try (CapturedLog log = new CapturedLog();
                RawKafkaConnection c = raw();
                KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            ackedRaw(c, h0, acked, "h0-before");
            gate = disk.fs().faults().hangFsync(Scope.under(disk.dataDir().resolve("h/0")));

            long t = System.nanoTime();
            ProduceResponseData.PartitionProduceResponse stalled = produceRaw(c, h0, "h0-stalled");
            long stalledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
            assertThat(stalled.errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(stalledMs)
                    .as("answered when the watchdog fired")
                    .isBetween(FSYNC_TIMEOUT.toMillis(), FSYNC_TIMEOUT.toMillis() + 5_000);
            assertThat(gate.blockedCount())
                    .as("the hung fsync is abandoned, not awaited")
                    .isEqualTo(1);

            // Now it fails fast: no second wait for the watchdog.
            t = System.nanoTime();
            assertThat(produceRaw(c, h0, "h0-while-stalled").errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t)).isLessThan(FSYNC_TIMEOUT.toMillis());

            for (int i = 0; i < 10; i++) {
                sendAcked(producer, h1, "h1-" + i, acked);
            }
            assertThat(consume(h1, 10)).containsExactlyElementsOf(acked.get(h1).values());
            assertThat(log.text())
                    .contains("h-0: fsync of")
                    .contains("took longer than " + FSYNC_TIMEOUT.toMillis() + " ms")
                    .contains("stalled");
            System.out.printf(
                    "fsync hang: h-0 answered KAFKA_STORAGE_ERROR after %d ms (watchdog %d ms)%n",
                    stalledMs, FSYNC_TIMEOUT.toMillis());
        } finally {
            if (gate != null) {
                gate.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DiskFullMode.class)
    void diskFullMidWriteShowsNoTornBatchAndARestartServesOnceSpaceReturns(DiskFullMode mode) throws Exception {
        broker.engine().createTopic("d", 1, TopicConfig.EMPTY);
        TopicPartition d0 = new TopicPartition("d", 0);
        Map<TopicPartition, Map<Long, String>> acked = new LinkedHashMap<>();
        try (RawKafkaConnection c = raw()) {
            for (int i = 0; i < 5; i++) {
                ackedRaw(c, d0, acked, "d-before-" + i);
            }
            // Less room than one batch header: the next batch is cut mid-write.
            disk.fs().faults().diskFullAfter(40, mode);
            String[] big = new String[20];
            for (int i = 0; i < big.length; i++) {
                big[i] = "d-does-not-fit-" + i;
            }
            assertThat(produceRaw(c, d0, big).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());

            FetchResponseData.PartitionData fetched = fetchRaw(c, d0);
            assertThat(fetched.errorCode()).isZero();
            assertThat(fetched.highWatermark()).isEqualTo(5);
            assertThat(valuesOf((MemoryRecords) fetched.records(), true))
                    .containsExactlyElementsOf(acked.get(d0).values());
        }
        assertThat(consume(d0, 5)).containsExactlyElementsOf(acked.get(d0).values());

        disk.fs().faults().spaceReturns();
        broker.stop();
        broker = startBroker(disk);
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                sendAcked(producer, d0, "d-after-restart-" + i, acked);
            }
        }
        assertThat(acked.get(d0).keySet()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(consume(d0, 10)).containsExactlyElementsOf(acked.get(d0).values());
    }

    @Test
    void readErrorFailsFetchForThatPartitionOnly() throws Exception {
        broker.engine().createTopic("r", 2, TopicConfig.EMPTY);
        TopicPartition r0 = new TopicPartition("r", 0);
        TopicPartition r1 = new TopicPartition("r", 1);
        Map<TopicPartition, Map<Long, String>> acked = new LinkedHashMap<>();
        try (RawKafkaConnection c = raw()) {
            for (int i = 0; i < 3; i++) {
                ackedRaw(c, r0, acked, "r0-" + i);
                ackedRaw(c, r1, acked, "r1-" + i);
            }
            disk.fs()
                    .faults()
                    .failReads(
                            Scope.under(disk.dataDir().resolve("r/0")).and(Scope.fileNameEndsWith(".log")),
                            Repeat.ALWAYS);

            Map<Integer, FetchResponseData.PartitionData> byPartition = fetchRaw(c, "r", 0, 1);
            assertThat(byPartition.get(0).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(byPartition.get(1).errorCode()).isZero();
            assertThat(valuesOf((MemoryRecords) byPartition.get(1).records(), true))
                    .containsExactlyElementsOf(acked.get(r1).values());
            assertThat(consume(r1, 3)).containsExactlyElementsOf(acked.get(r1).values());

            // A read error is not sticky: once the disk reads again, so does the partition.
            disk.fs().faults().clearReadFailure();
            FetchResponseData.PartitionData healed = fetchRaw(c, r0);
            assertThat(healed.errorCode()).isZero();
            assertThat(valuesOf((MemoryRecords) healed.records(), true))
                    .containsExactlyElementsOf(acked.get(r0).values());
        }
    }

    // ---------------------------------------------------------------------------------------- helpers

    private RawKafkaConnection raw() throws Exception {
        return new RawKafkaConnection(broker.boundPort());
    }

    private static ProduceResponseData.PartitionProduceResponse produceRaw(
            RawKafkaConnection c, TopicPartition tp, String... values) throws Exception {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        ProduceRequestData req = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        req.topicData()
                .add(new ProduceRequestData.TopicProduceData()
                        .setName(tp.topic())
                        .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                .setIndex(tp.partition())
                                .setRecords(MemoryRecords.withRecords(Compression.NONE, records)))));
        ProduceResponseData r = c.roundTrip(ApiKeys.PRODUCE, PRODUCE_V, req);
        return r.responses().iterator().next().partitionResponses().get(0);
    }

    /** A raw acks=all produce that must succeed; records each value at its acknowledged offset. */
    private static void ackedRaw(
            RawKafkaConnection c, TopicPartition tp, Map<TopicPartition, Map<Long, String>> acked, String... values)
            throws Exception {
        ProduceResponseData.PartitionProduceResponse r = produceRaw(c, tp, values);
        assertThat(r.errorCode()).as("produce to %s: %s", tp, r.errorMessage()).isZero();
        Map<Long, String> m = acked.computeIfAbsent(tp, k -> new LinkedHashMap<>());
        for (int i = 0; i < values.length; i++) {
            m.put(r.baseOffset() + i, values[i]);
        }
    }

    private static FetchResponseData.PartitionData fetchRaw(RawKafkaConnection c, TopicPartition tp) throws Exception {
        return fetchRaw(c, tp.topic(), tp.partition()).get(tp.partition());
    }

    private static Map<Integer, FetchResponseData.PartitionData> fetchRaw(
            RawKafkaConnection c, String topic, int... partitions) throws Exception {
        List<FetchRequestData.FetchPartition> ps = new ArrayList<>();
        for (int p : partitions) {
            ps.add(new FetchRequestData.FetchPartition()
                    .setPartition(p)
                    .setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 20));
        }
        FetchRequestData req = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 24);
        req.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(ps));
        FetchResponseData r = c.roundTrip(ApiKeys.FETCH, FETCH_V, req);
        assertThat(r.errorCode()).isZero();
        Map<Integer, FetchResponseData.PartitionData> out = new LinkedHashMap<>();
        for (FetchResponseData.PartitionData p : r.responses().get(0).partitions()) {
            out.put(p.partitionIndex(), p);
        }
        return out;
    }

    /** Every record's value in offset order; {@code checkCrc} fails on any batch a reader must not see. */
    private static List<String> valuesOf(MemoryRecords records, boolean checkCrc) {
        List<String> out = new ArrayList<>();
        for (MutableRecordBatch batch : records.batches()) {
            if (checkCrc) {
                batch.ensureValid();
            }
            for (Record r : batch) {
                out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
            }
        }
        return out;
    }

    /** Reads the whole partition through the engine: offset → value. */
    private static Map<Long, String> readAll(StorageEngine engine, TopicPartition tp) {
        PartitionLog log = engine.partition(new io.kaas.storage.TopicPartition(tp.topic(), tp.partition()));
        Map<Long, String> out = new LinkedHashMap<>();
        long hwm = log.state().highWatermark();
        long next = log.state().logStartOffset();
        while (next < hwm) {
            ByteBuffer bytes = log.read(next, 1 << 20, Long.MAX_VALUE).records();
            for (MutableRecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
                batch.ensureValid();
                for (Record r : batch) {
                    out.put(r.offset(), StandardCharsets.UTF_8.decode(r.value()).toString());
                }
                next = batch.nextOffset();
            }
        }
        return out;
    }

    private static ProducerRecord<byte[], byte[]> record(TopicPartition tp, String value) {
        return new ProducerRecord<>(tp.topic(), tp.partition(), null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void sendAcked(
            KafkaProducer<byte[], byte[]> producer,
            TopicPartition tp,
            String value,
            Map<TopicPartition, Map<Long, String>> acked)
            throws Exception {
        RecordMetadata md = producer.send(record(tp, value)).get(30, TimeUnit.SECONDS);
        acked.computeIfAbsent(tp, k -> new LinkedHashMap<>()).put(md.offset(), value);
    }

    private KafkaProducer<byte[], byte[]> producer(Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + broker.boundPort());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.putAll(overrides);
        return new KafkaProducer<>(p);
    }

    /** A kafka-clients consumer assigned to {@code tp} alone (it never asks about other partitions): values in order. */
    private List<String> consume(TopicPartition tp, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + broker.boundPort());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.CHECK_CRCS_CONFIG, true);
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }
}
