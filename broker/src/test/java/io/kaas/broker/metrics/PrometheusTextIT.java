package io.kaas.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The parser the metrics tests rely on says no to what Prometheus would refuse, so their scrapes can fail. */
class PrometheusTextIT {
    @Test
    void readsCountersAndHistograms() {
        PrometheusText m = PrometheusText.parse("""
                # HELP x_total Things.
                # TYPE x_total counter
                x_total{topic="a \\"b\\""} 3.0
                # TYPE h histogram
                h_bucket{le="1.0"} 1.0
                h_bucket{le="+Inf"} 2.0
                h_count 2.0
                h_sum 1.5
                """);
        assertThat(m.value("x_total", "topic", "a \"b\"")).contains(3.0);
        assertThat(m.family("x").orElseThrow().type()).isEqualTo("counter");
        assertThat(m.value("h_bucket", "le", "+Inf")).contains(2.0);
    }

    @Test
    void refusesMalformedExpositions() {
        assertThatThrownBy(() -> PrometheusText.parse("x_total{topic=a} 1\n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("x{a=\"1\"} notanumber\n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parseOpenMetrics("""
                # TYPE h histogram
                h_bucket{le="1.0"} 3
                h_bucket{le="+Inf"} 2
                h_count 2
                h_sum 1
                # EOF
                """))
                .as("buckets not cumulative")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parseOpenMetrics("# TYPE g gauge\ng 1\n"))
                .as("no # EOF")
                .isInstanceOf(IllegalArgumentException.class);
    }
}
