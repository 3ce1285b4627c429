package io.kaas.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.KaasBroker;
import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin listener of a real broker, driven by real kafka-clients: {@code /metrics} parsed by the
 * Prometheus project's parser ({@link PrometheusText}) and its counters checked against the traffic sent, OpenMetrics on request,
 * {@code /healthz}, {@code /readyz}, 404s, and a taken port. One broker for the class: the traffic test
 * uses its own topic, so the others do not disturb its counts.
 */
class MetricsEndpointIT {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = InetSocketAddress.createUnresolved("127.0.0.1", 0);

    @TempDir
    static Path dir;

    static TestBroker broker;
    static AdminHttp http;

    @BeforeAll
    static void start() {
        broker = new TestBroker(BrokerConfig.forTest(dir.resolve("data"))
                .withRetentionCheckInterval(Duration.ZERO)
                .withAdminListener(ANY_LOOPBACK_PORT));
        http = new AdminHttp(broker.broker().adminAddress());
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void countersMatchTheTrafficOfRealClients() throws Exception {
        broker.broker().engine().createTopic("metered", 2, io.kaas.storage.format.TopicConfig.EMPTY);
        int records = 200;
        long valueBytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of("linger.ms", 5))) {
            for (int i = 0; i < records; i++) {
                byte[] value = ("value-" + i).getBytes();
                valueBytes += value.length;
                producer.send(new ProducerRecord<>("metered", i % 2, null, value));
            }
            producer.flush();
        }
        List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "metered-group"))) {
            consumer.subscribe(List.of("metered"));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(seen::add);
                return seen.size() >= records;
            });
            consumer.commitSync();
            PrometheusText m = http.scrape();
            assertThat(m.value("kaas_connections", "listener", "PLAINTEXT"))
                    .get()
                    .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(1.0));
        }

        PrometheusText m = http.scrape();
        assertThat(m.value("kaas_messages_in_total", "topic", "metered")).contains((double) records);
        double bytesIn = m.value("kaas_bytes_in_total", "topic", "metered").orElseThrow();
        assertThat(bytesIn).as("batches carry the values plus headers").isGreaterThan(valueBytes);
        assertThat(m.value("kaas_bytes_out_total", "topic", "metered").orElseThrow())
                .as("everything was fetched")
                .isGreaterThanOrEqualTo(bytesIn);
        assertThat(m.sum("kaas_partition_high_watermark", "topic", "metered")).isEqualTo(records);
        assertThat(m.value("kaas_partition_log_start_offset", "topic", "metered", "partition", "0"))
                .contains(0.0);
        assertThat(m.sum("kaas_partition_size_bytes", "topic", "metered")).isEqualTo(bytesIn);
        assertThat(m.sum("kaas_consumer_group_lag", "group", "metered-group", "topic", "metered"))
                .isZero();
        assertThat(m.family("kaas_consumer_group_lag").orElseThrow().samples()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(m.value("kaas_requests_total", "api", "Produce", "error", "NONE"))
                .get()
                .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(1.0));
        assertThat(m.value("kaas_request_duration_seconds_count", "api", "Produce"))
                .get()
                .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(1.0));
        // The stages of each request add up to its duration: queue + handle + wait.
        double stages = m.value("kaas_request_queue_seconds_sum", "api", "Produce")
                        .orElseThrow()
                + m.value("kaas_request_handle_seconds_sum", "api", "Produce").orElseThrow()
                + m.value("kaas_request_wait_seconds_sum", "api", "Produce").orElseThrow();
        assertThat(stages)
                .isCloseTo(
                        m.value("kaas_request_duration_seconds_sum", "api", "Produce")
                                .orElseThrow(),
                        within(1e-3));
        assertThat(m.value("kaas_request_handle_seconds_sum", "api", "Produce").orElseThrow())
                .isPositive();
        assertThat(m.value("kaas_fsync_duration_seconds_count"))
                .get()
                .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(1.0));
        assertThat(m.value("kaas_fsync_appends_sum"))
                .get()
                .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(1.0));
        assertThat(m.value("kaas_partitions", "state", "ok"))
                .get()
                .satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(2.0));
        assertThat(m.value("kaas_partitions", "state", "stalled")).contains(0.0);
        assertThat(m.familyNames())
                .contains(
                        "kaas_open_files",
                        "jvm_memory_used_bytes",
                        "jvm_threads_current",
                        "kaas_storage_errors",
                        "kaas_retention_runs");
        assertThat(m.family("kaas_storage_errors").orElseThrow().type()).isEqualTo("counter");
        assertThat(m.family("kaas_fsync_duration_seconds").orElseThrow().type()).isEqualTo("histogram");
        everySeriesTheDashboardQueriesExists(m);
    }

    /** deploy/grafana/kaas.json: every metric its queries name is one this broker exports (after traffic, so labelled ones exist). */
    private static void everySeriesTheDashboardQueriesExists(PrometheusText m) throws Exception {
        JsonNode dashboard = new ObjectMapper()
                .readTree(Path.of("..", "deploy", "grafana", "kaas.json").toFile());
        Set<String> exported = new HashSet<>();
        m.familyNames()
                .forEach(f -> m.family(f).orElseThrow().samples().forEach(sample -> exported.add(sample.name())));
        Pattern metric = Pattern.compile("\\b((?:kaas|jvm|process)_[a-z_]+)");
        List<String> queried = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.path("targets")) {
                Matcher names = metric.matcher(target.get("expr").asText());
                while (names.find()) {
                    queried.add(names.group(1));
                }
            }
        }
        assertThat(queried).hasSizeGreaterThan(20);
        assertThat(exported).containsAll(queried);
    }

    @Test
    void openMetricsWhenTheAcceptHeaderAsks() throws Exception {
        AdminHttp.Response r = http.get("/metrics", "application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).startsWith("application/openmetrics-text");
        assertThat(r.body()).endsWith("# EOF\n");
        PrometheusText m = PrometheusText.parseOpenMetrics(r.body());
        assertThat(m.family("kaas_fsync_duration_seconds").orElseThrow().type()).isEqualTo("histogram");
        assertThat(m.family("kaas_open_files").orElseThrow().type()).isEqualTo("gauge");

        AdminHttp.Response text = http.get("/metrics");
        assertThat(text.contentType()).startsWith("text/plain; version=0.0.4");
    }

    @Test
    void healthAndReadinessAndUnknownPaths() throws Exception {
        assertThat(http.get("/healthz").status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> http.get("/readyz").status() == 200);
        assertThat(http.get("/readyz").body()).contains("\"status\":\"ready\"");
        assertThat(http.get("/nope").status()).isEqualTo(404);
        assertThat(http.get("/metrics/extra").status()).isEqualTo(404);
    }

    @Test
    void perPartitionSeriesCanBeTurnedOff(@TempDir Path other) throws Exception {
        try (TestBroker quiet = new TestBroker(BrokerConfig.forTest(other)
                .withRetentionCheckInterval(Duration.ZERO)
                .withAdminListener(ANY_LOOPBACK_PORT)
                .withMetricsPerPartition(false))) {
            quiet.broker().engine().createTopic("few", 3, io.kaas.storage.format.TopicConfig.EMPTY);
            PrometheusText m = new AdminHttp(quiet.broker().adminAddress()).scrape();
            assertThat(m.familyNames())
                    .doesNotContain(
                            "kaas_partition_high_watermark",
                            "kaas_partition_size_bytes",
                            "kaas_partition_log_start_offset",
                            "kaas_consumer_group_lag");
            assertThat(m.value("kaas_partitions", "state", "ok")).contains(3.0);
        }
    }

    @Test
    void aTakenAdminPortFailsTheStartWithOneClearMessage(@TempDir Path other) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            BrokerConfig config = BrokerConfig.forTest(other)
                    .withRetentionCheckInterval(Duration.ZERO)
                    .withAdminListener(InetSocketAddress.createUnresolved("127.0.0.1", taken.getLocalPort()));
            KaasBroker b = KaasBroker.create(config);
            assertThatThrownBy(b::start)
                    .isInstanceOf(UncheckedIOException.class)
                    .cause()
                    .hasMessageContaining("admin listener 127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("--admin-listener");
            b.stop();
        }
    }
}
