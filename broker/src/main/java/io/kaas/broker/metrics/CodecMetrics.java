package io.kaas.broker.metrics;

import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * The byte-opacity tripwires: {@code kaas_codec_record_decode_total{site}} and
 * {@code kaas_codec_batch_reencode_total{site}}, one series per {@link CodecSite}, exported as 0 from the
 * start so that an alert sees the first increase. Produce and Fetch have no site, so on a broker without
 * compacted or LogAppendTime topics and without ListOffsets-by-time lookups every series stays at zero
 * (deploy/prometheus/kaas-alerts.yaml). Each site's data point is looked up once, here, so a trip costs
 * one atomic add.
 */
final class CodecMetrics implements CodecTripwire {
    private final Map<CodecSite, CounterDataPoint> points = new EnumMap<>(CodecSite.class);

    CodecMetrics(PrometheusRegistry registry) {
        Counter decodes = Counter.builder()
                .name("kaas_codec_record_decode_total")
                .help("Records read out of batches, by the site that read them (Produce and Fetch never do)")
                .labelNames("site")
                .register(registry);
        Counter reencodes = Counter.builder()
                .name("kaas_codec_batch_reencode_total")
                .help("Batches written with bytes other than the client's, by site (Produce and Fetch never do)")
                .labelNames("site")
                .register(registry);
        for (CodecSite site : CodecSite.values()) {
            Counter counter = site.kind() == CodecSite.Kind.RECORD_DECODE ? decodes : reencodes;
            points.put(site, counter.labelValues(site.label()));
        }
    }

    @Override
    public void tripped(CodecSite site, long count) {
        points.get(site).inc(count);
    }
}
