package io.kaas.broker.telemetry;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.shaded.com.google.protobuf.InvalidProtocolBufferException;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.AnyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.KeyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;

/**
 * The metrics clients push (KIP-714), decoded from OTLP with the protobuf classes kafka-clients ships, and
 * exposed on the broker's {@code /metrics}: gauges as gauges, sums as counters (delta sums, which Apache's
 * subscriptions ask for, added up), each series labelled with the client's instance id, client id, software
 * name and version, source address and principal, the OTLP resource attributes, then the data point's own.
 * Names become Prometheus-safe ({@code org.apache.kafka.producer.record.send.total} is the counter
 * {@code org_apache_kafka_producer_record_send_total}); histograms and summaries are not kept (Kafka clients push
 * none). Bounded: at most {@link #MAX_SERIES} series in all (new series past it are dropped until clients expire),
 * and a client whose last push is older than three push intervals is dropped. Names in kaas's and the JVM's
 * namespaces are refused so that a client cannot shadow the broker's own series.
 */
public final class PushedMetrics implements ClientTelemetryExporter, MultiCollector {
    /** The most series kept across all clients. */
    public static final int MAX_SERIES = 10_000;
    /** A client is dropped once this many push intervals pass without a push. */
    static final int STALE_AFTER_INTERVALS = 3;

    private static final List<String> RESERVED_PREFIXES = List.of("kaas_", "jvm_", "process_");

    private final LongSupplier clock;
    private final int maxSeries;
    private final Object lock = new Object();
    // Guarded by lock.
    private final Map<Uuid, Client> clients = new HashMap<>();
    private int series;

    public PushedMetrics(LongSupplier clock) {
        this(clock, MAX_SERIES);
    }

    PushedMetrics(LongSupplier clock, int maxSeries) {
        this.clock = clock;
        this.maxSeries = maxSeries;
    }

    /** One series: a metric name, its kind, and its labels. */
    private record Series(String name, boolean counter, Labels labels) {}

    /** One client instance's series, and when it is forgotten. */
    private static final class Client {
        final Map<Series, double[]> values = new HashMap<>();
        long expiresAtMs;
    }

    /**
     * Apache's ClientMetricsManager hands each accepted push here; a payload that does not decode throws, which it
     * answers INVALID_RECORD.
     */
    @Override
    public void exportMetrics(ClientTelemetryContext context, ClientTelemetryPayload payload) {
        MetricsData data;
        try {
            data = MetricsData.parseFrom(payload.data());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not OTLP metrics: " + e.getMessage(), e);
        }
        Map<String, String> clientLabels = clientLabels(context, payload.clientInstanceId());
        long now = clock.getAsLong();
        synchronized (lock) {
            expire(now);
            Client client = clients.computeIfAbsent(payload.clientInstanceId(), id -> new Client());
            client.expiresAtMs = now + (long) STALE_AFTER_INTERVALS * Math.max(1, context.pushIntervalMs());
            for (ResourceMetrics rm : data.getResourceMetricsList()) {
                Map<String, String> resource = new TreeMap<>();
                addAttributes(resource, rm.getResource().getAttributesList());
                for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                    for (Metric m : sm.getMetricsList()) {
                        record(client, m, resource, clientLabels);
                    }
                }
            }
        }
    }

    private void record(Client client, Metric m, Map<String, String> resource, Map<String, String> clientLabels) {
        String legacy = m.getName().replaceAll("[^a-zA-Z0-9_:]", "_");
        if (legacy.isEmpty() || Character.isDigit(legacy.charAt(0))) {
            legacy = "_" + legacy;
        }
        String name = PrometheusNaming.sanitizeMetricName(legacy);
        if (name.isEmpty() || RESERVED_PREFIXES.stream().anyMatch(name::startsWith)) {
            return;
        }
        switch (m.getDataCase()) {
            case GAUGE -> {
                for (NumberDataPoint p : m.getGauge().getDataPointsList()) {
                    put(client, new Series(name, false, labels(p, resource, clientLabels)), value(p), false);
                }
            }
            case SUM -> {
                boolean delta =
                        m.getSum().getAggregationTemporality() == AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA;
                boolean counter = m.getSum().getIsMonotonic();
                for (NumberDataPoint p : m.getSum().getDataPointsList()) {
                    put(client, new Series(name, counter, labels(p, resource, clientLabels)), value(p), delta);
                }
            }
            default -> {
                // Histograms and summaries: Kafka clients push none; not exposed.
            }
        }
    }

    private void put(Client client, Series s, double v, boolean add) {
        double[] cell = client.values.get(s);
        if (cell == null) {
            if (series >= maxSeries) {
                return;
            }
            cell = new double[1];
            client.values.put(s, cell);
            series++;
            cell[0] = v;
        } else {
            cell[0] = add ? cell[0] + v : v;
        }
    }

    private static double value(NumberDataPoint p) {
        return p.getValueCase() == NumberDataPoint.ValueCase.AS_INT ? p.getAsInt() : p.getAsDouble();
    }

    private static Labels labels(NumberDataPoint p, Map<String, String> resource, Map<String, String> client) {
        Map<String, String> all = new TreeMap<>();
        addAttributes(all, p.getAttributesList());
        all.putAll(resource);
        all.putAll(client);
        return Labels.of(new ArrayList<>(all.keySet()), new ArrayList<>(all.values()));
    }

    private static void addAttributes(Map<String, String> into, List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            String key = kv.getKey().replaceAll("[^a-zA-Z0-9_]", "_");
            if (key.isEmpty() || Character.isDigit(key.charAt(0)) || key.startsWith("__")) {
                key = "_" + key;
            }
            into.put(key, text(kv.getValue()));
        }
    }

    private static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString().trim();
        };
    }

    /** The labels that name the client, from the request that pushed (Apache's request context). */
    private static Map<String, String> clientLabels(ClientTelemetryContext context, Uuid instanceId) {
        Map<String, String> out = new TreeMap<>();
        out.put("client_instance_id", instanceId.toString());
        if (context.authorizableRequestContext() instanceof RequestContext rc) {
            out.put("client_id", rc.clientId() == null ? "" : rc.clientId());
            out.put("client_software_name", rc.clientInformation.softwareName());
            out.put("client_software_version", rc.clientInformation.softwareVersion());
            out.put("client_source_address", rc.clientAddress().getHostAddress());
            out.put("principal", rc.principal().toString());
        }
        return out;
    }

    /** Drops the clients whose last push is older than three push intervals. */
    private void expire(long now) {
        for (Iterator<Client> it = clients.values().iterator(); it.hasNext(); ) {
            Client c = it.next();
            if (now - c.expiresAtMs > 0) {
                series -= c.values.size();
                it.remove();
            }
        }
    }

    /** How many series are kept now (after dropping stale clients). */
    public int seriesCount() {
        synchronized (lock) {
            expire(clock.getAsLong());
            return series;
        }
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> gauges = new TreeMap<>();
        Map<String, List<CounterSnapshot.CounterDataPointSnapshot>> counters = new TreeMap<>();
        synchronized (lock) {
            expire(clock.getAsLong());
            for (Client c : clients.values()) {
                c.values.forEach((s, v) -> {
                    if (s.counter()) {
                        counters.computeIfAbsent(s.name(), k -> new ArrayList<>())
                                .add(CounterSnapshot.CounterDataPointSnapshot.builder()
                                        .labels(s.labels())
                                        .value(v[0])
                                        .build());
                    } else {
                        gauges.computeIfAbsent(s.name(), k -> new ArrayList<>())
                                .add(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                                        .labels(s.labels())
                                        .value(v[0])
                                        .build());
                    }
                });
            }
        }
        List<MetricSnapshot> out = new ArrayList<>();
        counters.forEach((name, points) -> out.add(new CounterSnapshot(
                new io.prometheus.metrics.model.snapshots.MetricMetadata(name, "pushed by clients (KIP-714)"),
                distinct(points))));
        gauges.forEach((name, points) -> {
            if (!counters.containsKey(name)) { // one kind per name: a gauge sharing a counter's name is left out
                out.add(new GaugeSnapshot(
                        new io.prometheus.metrics.model.snapshots.MetricMetadata(name, "pushed by clients (KIP-714)"),
                        distinct(points)));
            }
        });
        return new MetricSnapshots(out);
    }

    /** A snapshot's points must have distinct labels; two clients with the same labels cannot, as instance ids differ. */
    private static <T extends io.prometheus.metrics.model.snapshots.DataPointSnapshot> List<T> distinct(
            List<T> points) {
        Map<Labels, T> byLabels = new java.util.LinkedHashMap<>();
        for (T p : points) {
            byLabels.putIfAbsent(p.getLabels(), p);
        }
        return new ArrayList<>(byLabels.values());
    }
}
