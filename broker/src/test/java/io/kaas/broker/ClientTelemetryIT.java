package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.metrics.AdminHttp;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListConfigResourcesOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.message.PushTelemetryResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Gauge;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client metrics (KIP-714) with real clients: subscriptions set with Admin and Apache's kafka-client-metrics,
 * validated and durable; a producer pushing its metrics, which appear on {@code /metrics} with its labels;
 * Apache's push errors over a raw connection; and ListConfigResources (KIP-1142). One broker for the class;
 * each test uses its own subscription, matching only its own client ids.
 */
class ClientTelemetryIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(BrokerConfig.forTest(dir.resolve("data"))
                .withRetentionCheckInterval(Duration.ZERO)
                .withAdminListener(InetSocketAddress.createUnresolved("127.0.0.1", 0)));
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    private static void subscribe(Admin admin, String name, Map<String, String> configs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name), ops))
                .all()
                .get();
    }

    private static Config describe(Admin admin, String name) throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name);
        return admin.describeConfigs(List.of(res)).all().get().get(res);
    }

    @Test
    void aProducersPushedMetricsAppearOnTheMetricsEndpointWithItsLabels() throws Exception {
        try (Admin admin = b.admin()) {
            subscribe(
                    admin,
                    "producers",
                    Map.of(
                            "metrics",
                            "org.apache.kafka.producer.",
                            "interval.ms",
                            "500",
                            "match",
                            "client_id=telemetry-producer.*"));
            admin.createTopics(List.of(new NewTopic("telemetry", 1, (short) 1)))
                    .all()
                    .get();
        }
        AdminHttp http = new AdminHttp(b.broker().adminAddress());
        Pattern sent = Pattern.compile(
                "(?m)^org_apache_kafka_producer_record_send_total\\{[^}]*client_id=\"telemetry-producer-1\"[^}]*\\}"
                        + " ([0-9.eE+]+)$");
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("client.id", "telemetry-producer-1"))) {
            for (int i = 0; i < 10; i++) {
                p.send(new ProducerRecord<>("telemetry", ("r" + i).getBytes())).get();
            }
            Uuid id = p.clientInstanceId(Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                String text = http.get("/metrics").body();
                var m = sent.matcher(text);
                assertThat(m.find())
                        .as("record-send-total pushed by the producer")
                        .isTrue();
                assertThat(Double.parseDouble(m.group(1))).isEqualTo(10.0);
                assertThat(m.group())
                        .contains(
                                "client_instance_id=\"" + id + "\"",
                                "client_software_name=\"apache-kafka-java\"",
                                "client_source_address=\"127.0.0.1\"");
            });
        }
    }

    @Test
    void subscriptionsAreValidatedByApacheAndDurable() throws Exception {
        try (Admin admin = b.admin()) {
            subscribe(admin, "durable", Map.of("metrics", "org.apache.kafka.consumer.", "interval.ms", "60000"));
            assertThatThrownBy(() -> subscribe(admin, "bad-interval", Map.of("interval.ms", "10")))
                    .cause()
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessage("Invalid value 10 for interval.ms, interval must be between 100 and 3600000 (1 hour)");
            assertThatThrownBy(() -> subscribe(admin, "bad-name", Map.of("no.such.config", "1")))
                    .cause()
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("no.such.config");
            assertThatThrownBy(() -> subscribe(admin, "bad-match", Map.of("match", "no_such_selector=x")))
                    .cause()
                    .isInstanceOf(InvalidConfigurationException.class);
        }
        b.restart();
        try (Admin admin = b.admin()) {
            Config c = describe(admin, "durable");
            assertThat(c.get("interval.ms").value()).isEqualTo("60000");
            assertThat(c.get("metrics").value()).isEqualTo("org.apache.kafka.consumer.");
            assertThat(c.get("interval.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG);
            assertThat(describe(admin, "bad-interval").entries()).isEmpty();
        }
    }

    @Test
    void kafkaClientMetricsAltersListsDescribesAndDeletes() throws Exception {
        String bs = b.bootstrap();
        tool(
                "--bootstrap-server",
                bs,
                "--alter",
                "--name",
                "tool-sub",
                "--metrics",
                "org.apache.kafka.consumer.",
                "--interval",
                "1000",
                "--match",
                "client_software_name=none");
        assertThat(tool("--bootstrap-server", bs, "--list").out()).contains("tool-sub");
        assertThat(tool("--bootstrap-server", bs, "--describe", "--name", "tool-sub")
                        .out())
                .contains("tool-sub", "interval.ms=1000", "org.apache.kafka.consumer.");
        tool("--bootstrap-server", bs, "--delete", "--name", "tool-sub");
        assertThat(tool("--bootstrap-server", bs, "--list").out()).doesNotContain("tool-sub");

        configs(
                "--bootstrap-server",
                bs,
                "--alter",
                "--entity-type",
                "client-metrics",
                "--entity-name",
                "cfg-sub",
                "--add-config",
                "interval.ms=2000,metrics=org.apache.kafka.producer.");
        assertThat(configs(
                                "--bootstrap-server",
                                bs,
                                "--describe",
                                "--entity-type",
                                "client-metrics",
                                "--entity-name",
                                "cfg-sub")
                        .out())
                .contains("interval.ms=2000", "metrics=org.apache.kafka.producer.");
    }

    private static ExternalProcess configs(String... args) throws Exception {
        ExternalProcess p = ExternalProcess.java(dir, null, "org.apache.kafka.tools.ConfigCommand", args);
        assertThat(p.exitCode()).as("kafka-configs %s%n%s", List.of(args), p).isZero();
        return p;
    }

    @Test
    void listConfigResourcesNamesTopicsTheBrokerGroupsWithConfigsAndSubscriptions() throws Exception {
        try (Admin admin = b.admin()) {
            subscribe(admin, "listed", Map.of("metrics", "*", "match", "client_id=nobody"));
            admin.createTopics(List.of(new NewTopic("listed-topic", 1, (short) 1)))
                    .all()
                    .get();
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.GROUP, "listed-group"),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("consumer.session.timeout.ms", "50000"),
                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get();
            assertThat(admin.listConfigResources().all().get())
                    .contains(
                            new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "listed"),
                            new ConfigResource(ConfigResource.Type.TOPIC, "listed-topic"),
                            new ConfigResource(ConfigResource.Type.GROUP, "listed-group"),
                            new ConfigResource(ConfigResource.Type.BROKER, "0"));
            assertThat(admin.listConfigResources(
                                    Set.of(ConfigResource.Type.CLIENT_METRICS), new ListConfigResourcesOptions())
                            .all()
                            .get())
                    .allMatch(r -> r.type() == ConfigResource.Type.CLIENT_METRICS)
                    .contains(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "listed"));
            @SuppressWarnings("deprecation")
            var v0 = admin.listClientMetricsResources().all().get();
            assertThat(v0).anyMatch(r -> r.name().equals("listed"));
        }
    }

    @Test
    void pushesOutOfTurnGetApachesErrors() throws Exception {
        try (Admin admin = b.admin()) {
            subscribe(admin, "raw", Map.of("metrics", "*", "interval.ms", "200", "match", "client_id=raw-test"));
        }
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            GetTelemetrySubscriptionsResponseData sub = c.roundTrip(
                    ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, (short) 0, new GetTelemetrySubscriptionsRequestData());
            assertThat(Errors.forCode(sub.errorCode())).isEqualTo(Errors.NONE);
            assertThat(sub.pushIntervalMs()).isEqualTo(200);
            assertThat(sub.requestedMetrics()).containsExactly("*");
            assertThat(sub.acceptedCompressionTypes()).isNotEmpty();
            byte[] otlp = MetricsData.newBuilder()
                    .addResourceMetrics(ResourceMetrics.newBuilder()
                            .addScopeMetrics(ScopeMetrics.newBuilder()
                                    .addMetrics(Metric.newBuilder()
                                            .setName("raw.gauge")
                                            .setGauge(Gauge.newBuilder()
                                                    .addDataPoints(NumberDataPoint.newBuilder()
                                                            .setAsInt(5))))))
                    .build()
                    .toByteArray();
            PushTelemetryRequestData push = new PushTelemetryRequestData()
                    .setClientInstanceId(sub.clientInstanceId())
                    .setSubscriptionId(sub.subscriptionId())
                    .setCompressionType((byte) 0)
                    .setMetrics(java.nio.ByteBuffer.wrap(otlp));
            assertThat(push(c, push)).isEqualTo(Errors.NONE);
            assertThat(push(c, push)).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED);
            push.setSubscriptionId(sub.subscriptionId() + 1);
            assertThat(untilNotThrottled(c, push)).isEqualTo(Errors.UNKNOWN_SUBSCRIPTION_ID);
            push.setSubscriptionId(sub.subscriptionId()).setCompressionType((byte) 99);
            assertThat(untilNotThrottled(c, push)).isEqualTo(Errors.UNSUPPORTED_COMPRESSION_TYPE);
            push.setCompressionType((byte) 0).setTerminating(true);
            assertThat(untilNotThrottled(c, push)).isEqualTo(Errors.NONE);
            assertThat(push(c, push)).isEqualTo(Errors.INVALID_REQUEST);
        }
    }

    /** Pushes until the push interval has passed (each answer before it is THROTTLING_QUOTA_EXCEEDED). */
    private static Errors untilNotThrottled(RawKafkaConnection c, PushTelemetryRequestData push) {
        return await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> push(c, push), e -> e != Errors.THROTTLING_QUOTA_EXCEEDED);
    }

    private static Errors push(RawKafkaConnection c, PushTelemetryRequestData push) throws Exception {
        PushTelemetryResponseData r = c.roundTrip(ApiKeys.PUSH_TELEMETRY, (short) 0, push);
        return Errors.forCode(r.errorCode());
    }

    private static ExternalProcess tool(String... args) throws Exception {
        ExternalProcess p = ExternalProcess.java(dir, null, "org.apache.kafka.tools.ClientMetricsCommand", args);
        assertThat(p.exitCode())
                .as("kafka-client-metrics %s%n%s", List.of(args), p)
                .isZero();
        return p;
    }
}
