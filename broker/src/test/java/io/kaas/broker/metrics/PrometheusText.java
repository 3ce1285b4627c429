package io.kaas.broker.metrics;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.testing.ExternalTool;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A scrape parsed by the Prometheus project's own parser: client_java writes the formats but reads
 * neither, so the tests run the official Python client's parsers (Debian's python3-prometheus-client,
 * which {@code .ci/run} installs) through {@code parse_exposition.py} next to this class. The text
 * format goes through the parser Prometheus-compatible scrapers use; OpenMetrics through its strict
 * parser, which also rejects histograms whose buckets are not cumulative or whose {@code +Inf} bucket
 * differs from {@code _count}. A family is named as that parser names it: a counter without its
 * {@code _total} suffix (its samples keep it).
 */
final class PrometheusText {
    record Sample(String name, Map<String, String> labels, double value) {}

    record Family(String name, String type, String help, List<Sample> samples) {}

    private record ParsedSample(String name, Map<String, String> labels, String value) {}

    private record ParsedFamily(String name, String type, String help, List<ParsedSample> samples) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    private PrometheusText() {}

    /** The Prometheus text format 0.0.4. */
    static PrometheusText parse(String text) {
        return run("text", text);
    }

    /** OpenMetrics 1.0 (what {@code /metrics} answers when the Accept header asks for it). */
    static PrometheusText parseOpenMetrics(String text) {
        return run("openmetrics", text);
    }

    private static PrometheusText run(String format, String exposition) {
        ExternalTool.PYTHON3_PROMETHEUS_CLIENT.assumePresent();
        try {
            Path script = Files.createTempFile("parse_exposition", ".py");
            try (InputStream in = PrometheusText.class.getResourceAsStream("parse_exposition.py")) {
                Files.write(script, in.readAllBytes());
            }
            try {
                Process p =
                        new ProcessBuilder(ExternalTool.DEBIAN_PYTHON.toString(), script.toString(), format).start();
                try (var stdin = p.getOutputStream()) {
                    stdin.write(exposition.getBytes(StandardCharsets.UTF_8));
                }
                byte[] out = p.getInputStream().readAllBytes();
                String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("the exposition parser did not finish");
                }
                if (p.exitValue() != 0) {
                    throw new IllegalArgumentException(err.strip());
                }
                List<ParsedFamily> parsed = new ObjectMapper().readValue(out, new TypeReference<>() {});
                PrometheusText result = new PrometheusText();
                for (ParsedFamily f : parsed) {
                    List<Sample> samples = f.samples().stream()
                            .map(s -> new Sample(s.name(), Map.copyOf(s.labels()), Double.parseDouble(s.value())))
                            .toList();
                    if (result.families.put(f.name(), new Family(f.name(), f.type(), f.help(), samples)) != null) {
                        throw new IllegalArgumentException(
                                "family " + f.name() + " declared twice (or its samples are split)");
                    }
                }
                return result;
            } finally {
                Files.deleteIfExists(script);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not run " + ExternalTool.DEBIAN_PYTHON
                            + " (Debian's python3 with python3-prometheus-client)",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    Optional<Family> family(String name) {
        return Optional.ofNullable(families.get(name));
    }

    Set<String> familyNames() {
        return families.keySet();
    }

    /** The value of the one sample named {@code name} with exactly these labels (k1, v1, k2, v2, ...). */
    Optional<Double> value(String name, String... labels) {
        Map<String, String> want = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        return families.values().stream()
                .flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(name) && s.labels().equals(want))
                .map(Sample::value)
                .findFirst();
    }

    /** Sum of every sample named {@code name} whose labels include these. */
    double sum(String name, String... labels) {
        return families.values().stream()
                .flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(name))
                .filter(s -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                            return false;
                        }
                    }
                    return true;
                })
                .mapToDouble(Sample::value)
                .sum();
    }
}
