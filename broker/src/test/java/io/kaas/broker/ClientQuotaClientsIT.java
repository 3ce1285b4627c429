package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas with Apache's kafka-configs and a real producer: the quota'd client id is held to
 * about its byte rate by throttle_time_ms and the muted connection (KIP-219); another is not.
 */
class ClientQuotaClientsIT {
    private static final int QUOTA = 200 * 1024;
    private static final int RECORD = 1024;
    /**
     * Apache measures over 11 samples of 1 s with a window of at least 10 s, so a new client may send
     * about 10 s worth at once: send 24 s worth, so the average shows the quota.
     */
    private static final int RECORDS = 24 * QUOTA / RECORD;

    @TempDir
    Path dir;

    TestBroker b;

    @BeforeEach
    void start() {
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterEach
    void stop() {
        b.close();
    }

    private ExternalProcess kafkaConfigs(String... args) throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("--bootstrap-server", b.bootstrap()));
        all.addAll(List.of(args));
        ExternalProcess p =
                ExternalProcess.java(dir, null, "org.apache.kafka.tools.ConfigCommand", all.toArray(String[]::new));
        assertThat(p.exitCode()).as("kafka-configs %s%n%s", all, p).isZero();
        return p;
    }

    /** Sends {@link #RECORDS} records of 1 KiB as {@code clientId}; returns seconds taken and the client's max throttle. */
    private double[] produce(String clientId) throws Exception {
        byte[] value = new byte[RECORD];
        long start = System.nanoTime();
        double throttleMax;
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(
                ProducerConfig.CLIENT_ID_CONFIG,
                clientId,
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                120_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                60_000))) {
            Future<?> last = null;
            for (int i = 0; i < RECORDS; i++) {
                last = p.send(new ProducerRecord<>("quota-" + clientId, value));
            }
            last.get();
            throttleMax = metric(p.metrics(), "produce-throttle-time-max");
        }
        return new double[] {(System.nanoTime() - start) / 1e9, throttleMax};
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e ->
                        e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aQuotadProducerIsHeldToAboutItsRateAndKafkaConfigsSeesTheQuotas() throws Exception {
        kafkaConfigs(
                "--alter",
                "--entity-type",
                "clients",
                "--entity-name",
                "slow",
                "--add-config",
                "producer_byte_rate=" + QUOTA);
        kafkaConfigs(
                "--alter",
                "--entity-type",
                "users",
                "--entity-default",
                "--add-config",
                "consumer_byte_rate=1048576,request_percentage=200");
        assertThat(kafkaConfigs("--describe", "--entity-type", "clients", "--entity-name", "slow")
                        .out())
                .contains("producer_byte_rate=" + QUOTA);
        assertThat(kafkaConfigs("--describe", "--entity-type", "users", "--entity-default")
                        .out())
                .contains("consumer_byte_rate=1048576", "request_percentage=200");

        double[] slow = produce("slow");
        double rate = RECORDS * (double) RECORD / slow[0];
        System.out.printf(
                "quota: %d B/s quota, %.0f B/s measured over %.1f s, max throttle %.0f ms%n",
                QUOTA, rate, slow[0], slow[1]);
        assertThat(slow[1]).as("the broker sent throttle_time_ms").isPositive();
        assertThat(rate).as("held to about its quota").isBetween(QUOTA * 0.5, QUOTA * 1.5);
        double[] fast = produce("fast");
        assertThat(fast[1]).as("a client id without a quota is never throttled").isZero();

        kafkaConfigs(
                "--alter",
                "--entity-type",
                "clients",
                "--entity-name",
                "slow",
                "--delete-config",
                "producer_byte_rate");
        assertThat(kafkaConfigs("--describe", "--entity-type", "clients", "--entity-name", "slow")
                        .out())
                .doesNotContain("producer_byte_rate");
    }
}
