package io.kaas.broker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.AnyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.KeyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Gauge;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Sum;
import org.apache.kafka.shaded.io.opentelemetry.proto.resource.v1.Resource;
import org.junit.jupiter.api.Test;

/** OTLP payloads as kafka-clients pushes them, turned into Prometheus series: names, labels, sums, bounds. */
class PushedMetricsTest {
    private static final int INTERVAL_MS = 1000;
    private final AtomicLong now = new AtomicLong(1_000_000);

    private record Context(int pushIntervalMs, AuthorizableRequestContext authorizableRequestContext)
            implements ClientTelemetryContext {}

    private record Payload(Uuid clientInstanceId, boolean isTerminating, String contentType, ByteBuffer data)
            implements ClientTelemetryPayload {}

    private static Context context() throws Exception {
        return new Context(
                INTERVAL_MS,
                new RequestContext(
                        new RequestHeader(ApiKeys.PUSH_TELEMETRY, (short) 0, "app-1", 7),
                        "conn",
                        InetAddress.getLoopbackAddress(),
                        Optional.of(5555),
                        KafkaPrincipal.ANONYMOUS,
                        ListenerName.normalised("PLAINTEXT"),
                        SecurityProtocol.PLAINTEXT,
                        new ClientInformation("apache-kafka-java", "4.4.0"),
                        false));
    }

    private static Metric deltaSum(String name, double value, String topic) {
        return Metric.newBuilder()
                .setName(name)
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setAsDouble(value)
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("topic")
                                        .setValue(AnyValue.newBuilder().setStringValue(topic)))))
                .build();
    }

    private static Metric gauge(String name, long value) {
        return Metric.newBuilder()
                .setName(name)
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(value)))
                .build();
    }

    private static Payload payload(Uuid id, Metric... metrics) {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
        for (Metric m : metrics) {
            scope.addMetrics(m);
        }
        MetricsData data = MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("client.rack")
                                        .setValue(AnyValue.newBuilder().setStringValue("r1"))))
                        .addScopeMetrics(scope))
                .build();
        return new Payload(id, false, "application/x-protobuf", ByteBuffer.wrap(data.toByteArray()));
    }

    private static MetricSnapshot named(MetricSnapshots all, String name) {
        return all.stream()
                .filter(s -> s.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in "
                        + all.stream().map(s -> s.getMetadata().getName()).toList()));
    }

    @Test
    void deltaSumsAddUpAsCountersAndGaugesTakeTheLastValueWithTheClientsLabels() throws Exception {
        PushedMetrics pushed = new PushedMetrics(now::get);
        Uuid id = Uuid.randomUuid();
        pushed.exportMetrics(
                context(),
                payload(
                        id,
                        deltaSum("org.apache.kafka.producer.record.send.total", 3, "t"),
                        gauge("org.apache.kafka.producer.buffer.available.bytes", 100)));
        pushed.exportMetrics(
                context(),
                payload(
                        id,
                        deltaSum("org.apache.kafka.producer.record.send.total", 4, "t"),
                        gauge("org.apache.kafka.producer.buffer.available.bytes", 70)));
        MetricSnapshots all = pushed.collect();
        CounterSnapshot sent = (CounterSnapshot) named(all, "org_apache_kafka_producer_record_send");
        assertThat(sent.getDataPoints()).hasSize(1);
        CounterSnapshot.CounterDataPointSnapshot point = sent.getDataPoints().get(0);
        assertThat(point.getValue()).isEqualTo(7.0);
        assertThat(point.getLabels().get("client_instance_id")).isEqualTo(id.toString());
        assertThat(point.getLabels().get("client_id")).isEqualTo("app-1");
        assertThat(point.getLabels().get("client_software_name")).isEqualTo("apache-kafka-java");
        assertThat(point.getLabels().get("client_software_version")).isEqualTo("4.4.0");
        assertThat(point.getLabels().get("client_source_address")).isEqualTo("127.0.0.1");
        assertThat(point.getLabels().get("client_rack")).isEqualTo("r1");
        assertThat(point.getLabels().get("topic")).isEqualTo("t");
        GaugeSnapshot buffer = (GaugeSnapshot) named(all, "org_apache_kafka_producer_buffer_available_bytes");
        assertThat(buffer.getDataPoints().get(0).getValue()).isEqualTo(70.0);
    }

    @Test
    void aClientIsDroppedThreePushIntervalsAfterItsLastPush() throws Exception {
        PushedMetrics pushed = new PushedMetrics(now::get);
        pushed.exportMetrics(context(), payload(Uuid.randomUuid(), gauge("a.b", 1)));
        now.addAndGet(3L * INTERVAL_MS);
        assertThat(pushed.seriesCount()).isEqualTo(1);
        now.incrementAndGet();
        assertThat(pushed.seriesCount()).isZero();
        assertThat(pushed.collect().size()).isZero();
    }

    @Test
    void seriesPastTheCapAreDroppedAndTheBrokersNamespacesAreRefused() throws Exception {
        PushedMetrics pushed = new PushedMetrics(now::get, 2);
        pushed.exportMetrics(
                context(), payload(Uuid.randomUuid(), gauge("m.one", 1), gauge("m.two", 2), gauge("m.three", 3)));
        assertThat(pushed.seriesCount()).isEqualTo(2);
        PushedMetrics open = new PushedMetrics(now::get);
        open.exportMetrics(context(), payload(Uuid.randomUuid(), gauge("kaas.requests", 1), gauge("jvm.threads", 1)));
        assertThat(open.seriesCount()).isZero();
    }

    @Test
    void aPayloadThatIsNotOtlpIsRefused() throws Exception {
        PushedMetrics pushed = new PushedMetrics(now::get);
        Payload junk = new Payload(
                Uuid.randomUuid(), false, "application/x-protobuf", ByteBuffer.wrap(new byte[] {(byte) 0xff, 1, 2}));
        assertThatThrownBy(() -> pushed.exportMetrics(context(), junk)).isInstanceOf(IllegalArgumentException.class);
    }
}
