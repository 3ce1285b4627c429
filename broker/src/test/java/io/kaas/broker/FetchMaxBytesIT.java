package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testing.ExternalTool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-74's fetch size rule with records larger than the limits: a topic of 3 partitions holding ten 900 KiB
 * records each (one batch per record), read from a broker on disk (Fetch sends file regions) and from one
 * in memory (Fetch copies, as on TLS listeners). The response's max_bytes bounds all partitions together,
 * partition_max_bytes each partition, and only the first batch of the first partition that returns any may
 * be over them. Checked exactly with raw Fetch requests, and with kafka-clients and librdkafka consumers at
 * small fetch.max.bytes / max.partition.fetch.bytes: every record read, every Fetch response (measured by a
 * proxy) holding at most one batch.
 */
class FetchMaxBytesIT {
    private static final String TOPIC = "big";
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 10;
    private static final int VALUE_BYTES = 900 * 1024;
    /** Response framing, headers and per-partition fields around the records of 3 partitions. */
    private static final int RESPONSE_OVERHEAD = 1_000;

    @TempDir
    static Path dir;

    private static final AtomicReference<TestBroker> onDisk = new AtomicReference<>();
    private static final AtomicReference<TestBroker> inMemory = new AtomicReference<>();
    private static FetchSizeProxy onDiskProxy;
    private static FetchSizeProxy inMemoryProxy;

    @BeforeAll
    static void start() throws Exception {
        onDiskProxy = new FetchSizeProxy(() -> onDisk.get().broker().boundPort());
        inMemoryProxy = new FetchSizeProxy(() -> inMemory.get().broker().boundPort());
        started(BrokerConfig.forTest(dir.resolve("disk")), onDiskProxy, onDisk);
        started(BrokerConfig.forTest(dir.resolve("memory")).withInMemory(true), inMemoryProxy, inMemory);
    }

    private static void started(BrokerConfig config, FetchSizeProxy proxy, AtomicReference<TestBroker> into)
            throws Exception {
        TestBroker b = new TestBroker(
                config.withAdvertisedListeners(List.of(new Endpoint("PLAINTEXT", "127.0.0.1", proxy.port()))));
        into.set(b);
        b.broker().engine().createTopic(TOPIC, PARTITIONS, TopicConfig.EMPTY);
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + proxy.port(),
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                2 << 20,
                ProducerConfig.LINGER_MS_CONFIG,
                0))) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    p.send(new ProducerRecord<>(
                                    TOPIC, partition, key(partition, i).getBytes(), new byte[VALUE_BYTES]))
                            .get();
                }
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (AtomicReference<TestBroker> b : List.of(onDisk, inMemory)) {
            if (b.get() != null) {
                b.get().close();
            }
        }
        onDiskProxy.close();
        inMemoryProxy.close();
    }

    private static String key(int partition, int i) {
        return "p" + partition + "-" + i;
    }

    private static TestBroker broker(boolean memory) {
        return memory ? inMemory.get() : onDisk.get();
    }

    private static FetchSizeProxy proxy(boolean memory) {
        return memory ? inMemoryProxy : onDiskProxy;
    }

    /** Every record is its own batch of this size (keys are all as long). */
    private static int batchBytes(boolean memory) throws Exception {
        return recordBytes(memory, 1 << 30, 1, new long[] {0, PER_PARTITION, PER_PARTITION})
                .get(0);
    }

    @ParameterizedTest(name = "in memory={0}")
    @ValueSource(booleans = {false, true})
    void responseAndPartitionLimitsCountWholeBatchesAndOnlyTheFirstMayExceed(boolean memory) throws Exception {
        int b = batchBytes(memory);
        assertThat(b).isBetween(VALUE_BYTES, VALUE_BYTES + 200);
        long[] start = {0, 0, 0};
        // The issue's case: max_bytes 1,000,000 < 2 batches: the first batch of partition 0 only.
        Fetched issue = fetch(memory, 1_000_000, 1 << 20, start);
        assertThat(issue.records()).containsExactly(b, 0, 0);
        assertThat(issue.bodyBytes()).isLessThanOrEqualTo(1_000_000);
        // Room for two batches in the response, one per partition.
        assertThat(recordBytes(memory, 2_000_000, 1 << 20, start)).containsExactly(b, b, 0);
        // partition_max_bytes below one batch: the first partition's first batch, nothing from the others.
        assertThat(recordBytes(memory, 10_000_000, 100_000, start)).containsExactly(b, 0, 0);
        // The first partition has nothing new: the first non-empty one may exceed.
        assertThat(recordBytes(memory, 100_000, 100_000, new long[] {PER_PARTITION, 0, 0}))
                .containsExactly(0, b, 0);
        // Several batches per partition, the last partition getting what is left of the response.
        assertThat(recordBytes(memory, 5 * b - 100, 2 * b + 100, start)).containsExactly(2 * b, 2 * b, 0);
        Fetched five = fetch(memory, 5 * b + 100, 2 * b + 100, start);
        assertThat(five.records()).containsExactly(2 * b, 2 * b, b);
        assertThat(five.bodyBytes()).isBetween(5 * b, 5 * b + 100 + RESPONSE_OVERHEAD);
        // max_bytes 0: no limit but the partitions'.
        assertThat(recordBytes(memory, 0, b, start)).containsExactly(b, b, b);
    }

    @ParameterizedTest(name = "in memory={0}")
    @ValueSource(booleans = {false, true})
    void kafkaClientsReadsEverythingWithinSmallLimits(boolean memory) throws Exception {
        int b = batchBytes(memory);
        FetchSizeProxy proxy = proxy(memory);
        for (Map<String, Object> limits : List.<Map<String, Object>>of(
                Map.of(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 1_000_000),
                Map.of(
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                        10_000_000,
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        100_000))) {
            int before = proxy.fetchResponseSizes().size();
            Map<String, Object> config = new java.util.HashMap<>(limits);
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + proxy.port());
            config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
            config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4 << 20);
            Set<String> keys = new HashSet<>();
            try (KafkaConsumer<byte[], byte[]> c = broker(memory).consumer(config)) {
                c.assign(java.util.stream.IntStream.range(0, PARTITIONS)
                        .mapToObj(p -> new org.apache.kafka.common.TopicPartition(TOPIC, p))
                        .toList());
                c.seekToBeginning(c.assignment());
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    c.poll(Duration.ofMillis(100)).forEach(r -> keys.add(new String(r.key())));
                    return keys.size() == PARTITIONS * PER_PARTITION;
                });
            }
            List<Integer> sizes = proxy.fetchResponseSizes()
                    .subList(before, proxy.fetchResponseSizes().size());
            System.out.printf(
                    "kafka-clients %s, in memory=%s: %d Fetch responses, largest %d bytes%n",
                    limits,
                    memory,
                    sizes.size(),
                    sizes.stream().mapToInt(Integer::intValue).max().orElse(0));
            assertThat(sizes).as("at most one batch per response").allMatch(s -> s <= b + RESPONSE_OVERHEAD);
        }
    }

    @ParameterizedTest(name = "in memory={0}")
    @ValueSource(booleans = {false, true})
    void librdkafkaReadsEverythingAtFetchMaxBytesBelowTwoRecords(boolean memory) throws Exception {
        ExternalTool.PYTHON3_CONFLUENT_KAFKA.assumePresent();
        int b = batchBytes(memory);
        Path script = dir.resolve("librdkafka_fetch_max_bytes.py");
        if (!Files.exists(script)) {
            try (InputStream in = FetchMaxBytesIT.class.getResourceAsStream("librdkafka_fetch_max_bytes.py")) {
                Files.copy(in, script);
            }
        }
        FetchSizeProxy proxy = proxy(memory);
        int before = proxy.fetchResponseSizes().size();
        ExternalProcess p = ExternalProcess.run(
                dir,
                null,
                List.of(
                        ExternalTool.DEBIAN_PYTHON.toString(),
                        script.toString(),
                        "127.0.0.1:" + proxy.port(),
                        TOPIC,
                        String.valueOf(PARTITIONS * PER_PARTITION),
                        "1000000"));
        assertThat(p.exitCode()).as(p.toString()).isZero();
        JsonNode result = new ObjectMapper().readTree(p.out());
        Set<String> keys = new HashSet<>();
        result.get("keys").forEach(k -> keys.add(k.asText()));
        assertThat(keys).hasSize(PARTITIONS * PER_PARTITION);
        List<Integer> sizes = proxy.fetchResponseSizes()
                .subList(before, proxy.fetchResponseSizes().size());
        System.out.printf(
                "librdkafka fetch.max.bytes=1000000, in memory=%s: %d Fetch responses, largest %d bytes%n",
                memory,
                sizes.size(),
                sizes.stream().mapToInt(Integer::intValue).max().orElse(0));
        assertThat(sizes).as("within fetch.max.bytes").allMatch(s -> s <= Math.min(1_000_000, b + RESPONSE_OVERHEAD));
    }

    /** One raw Fetch's answer: the records bytes of each partition, and the response body's size. */
    record Fetched(List<Integer> records, int bodyBytes) {}

    private static List<Integer> recordBytes(boolean memory, int maxBytes, int partitionMaxBytes, long[] offsets)
            throws Exception {
        return fetch(memory, maxBytes, partitionMaxBytes, offsets).records();
    }

    /** One raw Fetch (v12, by name) of the 3 partitions from {@code offsets}. */
    private static Fetched fetch(boolean memory, int maxBytes, int partitionMaxBytes, long[] offsets) throws Exception {
        FetchRequestData fetch = new FetchRequestData()
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(maxBytes)
                .setSessionEpoch(-1)
                .setReplicaId(-1);
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic(TOPIC);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            topic.partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(partition)
                            .setFetchOffset(offsets[partition])
                            .setPartitionMaxBytes(partitionMaxBytes));
        }
        fetch.topics().add(topic);
        try (RawKafkaConnection c =
                new RawKafkaConnection(broker(memory).broker().boundPort())) {
            int id = c.send(ApiKeys.FETCH, (short) 12, fetch);
            java.nio.ByteBuffer body = c.receive(ApiKeys.FETCH, (short) 12, id);
            int bodyBytes = body.remaining();
            FetchResponseData response = new FetchResponseData();
            response.read(new org.apache.kafka.common.protocol.ByteBufferAccessor(body), (short) 12);
            List<Integer> out = new ArrayList<>();
            for (FetchResponseData.PartitionData p : response.responses().get(0).partitions()) {
                assertThat(p.errorCode()).isZero();
                out.add(p.records() == null ? 0 : ((BaseRecords) p.records()).sizeInBytes());
            }
            return new Fetched(out, bodyBytes);
        }
    }
}
