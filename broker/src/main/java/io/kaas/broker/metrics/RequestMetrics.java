package io.kaas.broker.metrics;

import io.kaas.protocol.RequestObserver;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * {@code kaas_requests_total{api,error}}, {@code kaas_request_duration_seconds{api}} (decode → response
 * ready, fsync waits included), and its stages {@code kaas_request_queue_seconds{api}} (decode → a handler
 * thread starts it), {@code kaas_request_handle_seconds{api}} (the handler's own run) and
 * {@code kaas_request_wait_seconds{api}} (handler returned → response ready: the fsync of an acks=all Produce,
 * a Fetch's long poll), so a latency tail can be placed in its stage from the broker's own figures. The data points of the common case (error NONE) are cached per API key, so answering a
 * request costs no label lookup; errors, being rare, look theirs up.
 */
final class RequestMetrics implements RequestObserver {
    /** 100 µs to 30 s: an fsync-bound Produce is milliseconds; a long-poll Fetch up to its max wait. */
    static final double[] LATENCY_BUCKETS = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
    };

    private static final double NANOS_PER_SECOND = 1e9;

    private record Points(
            CounterDataPoint ok,
            DistributionDataPoint duration,
            DistributionDataPoint queue,
            DistributionDataPoint handle,
            DistributionDataPoint waited) {}

    private final Counter requests;
    private final Histogram duration;
    private final Histogram queue;
    private final Histogram handle;
    private final Histogram waited;
    private final AtomicReferenceArray<Points> byApi;

    RequestMetrics(PrometheusRegistry registry) {
        requests = Counter.builder()
                .name("kaas_requests_total")
                .help("Requests answered, by API and request-level error (NONE when the handler succeeded)")
                .labelNames("api", "error")
                .withoutExemplars()
                .register(registry);
        duration = Histogram.builder()
                .name("kaas_request_duration_seconds")
                .help("From a request being decoded to its response being ready (queue, handling and fsync wait)")
                .labelNames("api")
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars()
                .register(registry);
        queue = Histogram.builder()
                .name("kaas_request_queue_seconds")
                .help("From a request being decoded to a request-handler thread starting it")
                .labelNames("api")
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars()
                .register(registry);
        handle = Histogram.builder()
                .name("kaas_request_handle_seconds")
                .help("A request handler's own run, from starting a request to returning (e.g. Produce's appends)")
                .labelNames("api")
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars()
                .register(registry);
        waited = Histogram.builder()
                .name("kaas_request_wait_seconds")
                .help("From a request handler returning to the response being ready (fsync of acks=all, long polls)")
                .labelNames("api")
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars()
                .register(registry);
        int maxId = 0;
        for (ApiKeys k : ApiKeys.values()) {
            maxId = Math.max(maxId, k.id);
        }
        byApi = new AtomicReferenceArray<>(maxId + 1);
    }

    @Override
    public void answered(ApiKeys api, Errors error, long queueNanos, long handleNanos, long totalNanos) {
        Points p = points(api);
        if (error == Errors.NONE) {
            p.ok.inc();
        } else {
            requests.labelValues(api.name, error.name()).inc();
        }
        p.duration.observe(totalNanos / NANOS_PER_SECOND);
        p.queue.observe(queueNanos / NANOS_PER_SECOND);
        p.handle.observe(handleNanos / NANOS_PER_SECOND);
        p.waited.observe(Math.max(0, totalNanos - queueNanos - handleNanos) / NANOS_PER_SECOND);
    }

    private Points points(ApiKeys api) {
        Points p = byApi.get(api.id);
        if (p == null) {
            // Two threads may race here; labelValues returns the same data points to both.
            p = new Points(
                    requests.labelValues(api.name, Errors.NONE.name()),
                    duration.labelValues(api.name),
                    queue.labelValues(api.name),
                    handle.labelValues(api.name),
                    waited.labelValues(api.name));
            byApi.set(api.id, p);
        }
        return p;
    }
}
