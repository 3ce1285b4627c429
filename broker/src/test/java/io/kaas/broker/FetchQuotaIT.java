package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * consumer_byte_rate and request_percentage as Apache's broker enforces them (KIP-219, KIP-124), on a
 * broker with a short quota window (quota.window.num=3 of 1 s, so a fetch may take at most 2 s worth):
 * a fetch that would put the client over its quota is answered with no records and throttle_time_ms,
 * and its connection is not read until the throttle is over; a real consumer still reads everything, in
 * order. A request_percentage throttle is at most one sample long.
 */
class FetchQuotaIT {
    private static final int RATE = 64 * 1024;
    private static final int RECORD = 1024;
    private static final int RECORDS = 400;
    private static final String TOPIC = "quota-fetch";

    @TempDir
    Path dir;

    TestBroker b;

    @BeforeEach
    void start() throws Exception {
        b = TestBroker.secured(
                dir.resolve("data"),
                Map.of("quota.window.num", "3", "quota.window.size.seconds", "1"),
                "PLAINTEXT://127.0.0.1:0");
        byte[] value = new byte[RECORD];
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
            Future<?> last = null;
            for (int i = 0; i < RECORDS; i++) {
                last = p.send(new ProducerRecord<>(TOPIC, value));
            }
            last.get();
        }
    }

    @AfterEach
    void stop() {
        b.close();
    }

    private void setQuota(String clientId, String key, double value) throws Exception {
        try (Admin admin = b.admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                            new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                            List.of(new ClientQuotaAlteration.Op(key, value)))))
                    .all()
                    .get();
        }
    }

    private static FetchRequestData fetchAt(long offset) {
        return new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(50 << 20)
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopic(TOPIC)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(offset)
                                .setPartitionMaxBytes(50 << 20)))));
    }

    private static FetchResponseData read(RawKafkaConnection c, short version, int id) throws Exception {
        ByteBuffer body = c.receive(ApiKeys.FETCH, version, id);
        FetchResponseData r = new FetchResponseData();
        r.read(new ByteBufferAccessor(body), version);
        return r;
    }

    @Test
    void aFetchOverTheByteRateGetsNoRecordsAndAMutedConnectionAndNothingIsLost() throws Exception {
        setQuota("raw-test", "consumer_byte_rate", RATE);
        short v = 12;
        long offset = 0;
        int throttled = 0;
        int biggest = 0;
        long start = System.nanoTime();
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            while (offset < RECORDS) {
                FetchResponseData r = read(c, v, c.send(ApiKeys.FETCH, v, fetchAt(offset)));
                assertThat(r.errorCode()).isZero();
                if (r.throttleTimeMs() > 0) {
                    throttled++;
                    // Apache's getThrottledResponse: no partitions at all, no session.
                    assertThat(r.responses())
                            .as("a throttled fetch carries no records")
                            .isEmpty();
                    assertThat(r.sessionId()).isZero();
                    // KIP-219: the next request is not read before the throttle is over, even though this client sends
                    // it at once.
                    long sent = System.nanoTime();
                    FetchResponseData next = read(c, v, c.send(ApiKeys.FETCH, v, fetchAt(offset)));
                    long waitedMs = (System.nanoTime() - sent) / 1_000_000;
                    assertThat(waitedMs)
                            .as("muted for the throttle (%d ms)", r.throttleTimeMs())
                            .isGreaterThanOrEqualTo(r.throttleTimeMs() / 2);
                    r = next;
                    if (r.throttleTimeMs() > 0) {
                        assertThat(r.responses()).isEmpty();
                        continue;
                    }
                }
                FetchResponseData.PartitionData p =
                        r.responses().get(0).partitions().get(0);
                assertThat(p.errorCode()).isZero();
                int bytes = p.records().sizeInBytes();
                biggest = Math.max(biggest, bytes);
                long next = offset;
                for (var batch : ((org.apache.kafka.common.record.internal.MemoryRecords) p.records()).batches()) {
                    assertThat(batch.baseOffset())
                            .as("batches follow on from the fetch offset")
                            .isEqualTo(next);
                    next = batch.nextOffset();
                }
                assertThat(next).as("an unthrottled fetch returns records").isGreaterThan(offset);
                offset = next;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                "fetch quota: %d B at %d B/s took %.1f s, %d throttled fetches, largest fetch %d B%n",
                RECORDS * RECORD, RATE, seconds, throttled, biggest);
        assertThat(throttled).as("the client went over its quota").isPositive();
        // Apache's cap: a consumer fetches at most what its rate allows in (samples - 1) windows.
        assertThat(biggest).as("fetch size capped at rate x 2 s").isLessThanOrEqualTo(2 * RATE);
        // 400 KiB at 64 KiB/s with about 2 s of burst: at least ~4 s.
        assertThat(seconds).as("held to about its rate").isGreaterThan((RECORDS * (double) RECORD / RATE - 2) * 0.6);
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return metrics.entrySet().stream()
                .filter(e ->
                        e.getKey().name().equals(name) && e.getKey().group().equals(group))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst()
                .orElseThrow();
    }

    private static List<Long> consumeAll(KafkaConsumer<byte[], byte[]> c) {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        c.assign(List.of(tp));
        c.seekToBeginning(List.of(tp));
        return consume(c, RECORDS, Duration.ofSeconds(60));
    }

    /** Polls until {@code count} records came or {@code within} passed; returns their offsets. */
    private static List<Long> consume(KafkaConsumer<byte[], byte[]> c, int count, Duration within) {
        List<Long> offsets = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (offsets.size() < count && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                offsets.add(r.offset());
            }
        }
        return offsets;
    }

    @Test
    void aRealConsumerOverItsByteRateIsThrottledAndReadsEverythingInOrder() throws Exception {
        setQuota("slow-consumer", "consumer_byte_rate", RATE);
        long start = System.nanoTime();
        List<Long> offsets;
        double throttleMax;
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "slow-consumer"))) {
            offsets = consumeAll(c);
            throttleMax = metric(c.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                "consumer quota: %d B at %d B/s read in %.1f s, max throttle %.0f ms%n",
                RECORDS * RECORD, RATE, seconds, throttleMax);
        assertThat(offsets)
                .as("every record once, in order")
                .isEqualTo(java.util.stream.LongStream.range(0, RECORDS).boxed().toList());
        assertThat(throttleMax).as("the broker sent throttle_time_ms").isPositive();
        assertThat(seconds).as("held to about its rate").isGreaterThan((RECORDS * (double) RECORD / RATE - 2) * 0.6);

        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "free-consumer"))) {
            assertThat(consumeAll(c)).hasSize(RECORDS);
            assertThat(metric(c.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max"))
                    .as("a client id without a quota is never throttled")
                    .isZero();
        }
    }

    @Test
    void requestPercentageThrottlesRealClientsForAtMostOneSample() throws Exception {
        // 0.0001% of one thread is 1 us of handler time per second: every request of a real client goes over.
        setQuota("busy-producer", "request_percentage", 0.0001);
        setQuota("busy-consumer", "request_percentage", 0.0001);
        double produceThrottle;
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(ProducerConfig.CLIENT_ID_CONFIG, "busy-producer"))) {
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>("quota-request", new byte[10])).get();
            }
            produceThrottle = metric(p.metrics(), "producer-metrics", "produce-throttle-time-max");
        }
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "busy-consumer"))) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            // Apache answers a fetch over request_percentage with no records, as one over its byte rate.
            List<Long> whileThrottled = consume(c, RECORDS, Duration.ofSeconds(4));
            double fetchThrottle = metric(c.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
            System.out.printf(
                    "request quota: max produce throttle %.0f ms, max fetch throttle %.0f ms, %d records while throttled%n",
                    produceThrottle, fetchThrottle, whileThrottled.size());
            // Apache's ClientRequestQuotaManager bounds the throttle by quota.window.size.seconds (1 s here).
            assertThat(produceThrottle).isPositive().isLessThanOrEqualTo(1000);
            assertThat(fetchThrottle).isPositive().isLessThanOrEqualTo(1000);
            assertThat(whileThrottled.size())
                    .as("throttled fetches carry no records")
                    .isLessThan(RECORDS);

            try (Admin admin = b.admin()) {
                admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                                new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "busy-consumer")),
                                List.of(new ClientQuotaAlteration.Op("request_percentage", null)))))
                        .all()
                        .get();
            }
            List<Long> all = new ArrayList<>(whileThrottled);
            all.addAll(consume(c, RECORDS - whileThrottled.size(), Duration.ofSeconds(30)));
            assertThat(all)
                    .as("every record once, in order")
                    .isEqualTo(java.util.stream.LongStream.range(0, RECORDS)
                            .boxed()
                            .toList());
        }
    }

    @Test
    void aRequestDeniedByTheAuthorizerIsThrottledTooAsApache(@TempDir Path other) throws Exception {
        // No ACLs and no super user: ANONYMOUS on PLAINTEXT is denied DescribeLogDirs (CLUSTER DESCRIBE).
        Path data = other.resolve("data");
        io.kaas.broker.quota.ClientQuotaStore.inDataDir(data)
                .save(Map.of(
                        new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "raw-test")),
                        Map.of("request_percentage", 0.0001)));
        try (TestBroker secured = TestBroker.secured(
                        data,
                        Map.of("authorizer.class.name", io.kaas.broker.security.AccessControl.STANDARD_AUTHORIZER),
                        "PLAINTEXT://127.0.0.1:0");
                RawKafkaConnection c = new RawKafkaConnection(secured.broker().boundPort())) {
            short v = 4;
            org.apache.kafka.common.message.DescribeLogDirsResponseData r = c.roundTrip(
                    ApiKeys.DESCRIBE_LOG_DIRS,
                    v,
                    new org.apache.kafka.common.message.DescribeLogDirsRequestData().setTopics(null));
            assertThat(r.errorCode())
                    .isEqualTo(org.apache.kafka.common.protocol.Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            // Apache's sendErrorResponseMaybeThrottle: the denial counts against request_percentage and carries the
            // throttle.
            assertThat(r.throttleTimeMs()).isPositive().isLessThanOrEqualTo(1000);
        }
    }
}
