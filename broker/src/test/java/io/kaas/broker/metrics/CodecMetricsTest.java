package io.kaas.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.CodecSite;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The tripwire counters as exported, and the alert rules in deploy/ that watch them. */
class CodecMetricsTest {
    @Test
    void everySiteIsExportedAtZeroAndCountsInItsKindsSeries() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        CodecMetrics codec = new CodecMetrics(registry);
        String before = text(registry);
        for (CodecSite site : CodecSite.values()) {
            String family = site.kind() == CodecSite.Kind.RECORD_DECODE
                    ? "kaas_codec_record_decode_total"
                    : "kaas_codec_batch_reencode_total";
            assertThat(before).contains(family + "{site=\"" + site.label() + "\"} 0.0");
        }
        codec.tripped(CodecSite.LOG_APPEND_TIME, 3);
        codec.tripped(CodecSite.CLEANER_FILTER, 40);
        String after = text(registry);
        assertThat(after)
                .contains("kaas_codec_batch_reencode_total{site=\"log_append_time\"} 3.0")
                .contains("kaas_codec_record_decode_total{site=\"cleaner_filter\"} 40.0")
                .contains("kaas_codec_record_decode_total{site=\"list_offsets_timestamp\"} 0.0");
    }

    /**
     * The alerts fire on any site outside their lists of intended ones; those lists must be exactly the
     * sites CodecSite names, so that adding a site is a decision about the alert too.
     */
    @Test
    void theAlertRulesNameExactlyTheIntendedSites() throws Exception {
        String rules = Files.readString(Path.of("..", "deploy", "prometheus", "kaas-alerts.yaml"));
        assertThat(excluded(rules, "kaas_codec_record_decode_total")).isEqualTo(labels(CodecSite.Kind.RECORD_DECODE));
        assertThat(excluded(rules, "kaas_codec_batch_reencode_total")).isEqualTo(labels(CodecSite.Kind.BATCH_REENCODE));
    }

    private static Set<String> excluded(String rules, String family) {
        Matcher m = Pattern.compile(Pattern.quote(family) + "\\{site!~\"([a-z_|]+)\"}")
                .matcher(rules);
        assertThat(m.find())
                .as("a rule over %s excluding the intended sites", family)
                .isTrue();
        return Set.of(m.group(1).split("\\|"));
    }

    private static Set<String> labels(CodecSite.Kind kind) {
        return Arrays.stream(CodecSite.values())
                .filter(s -> s.kind() == kind)
                .map(CodecSite::label)
                .collect(Collectors.toSet());
    }

    private static String text(PrometheusRegistry registry) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }
}
