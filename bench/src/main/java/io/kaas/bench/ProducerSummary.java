package io.kaas.bench;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The final summary of one {@code org.apache.kafka.tools.ProducerPerformance} process.
 *
 * <p>The tool prints a progress line every reporting interval and, at the end, one line with
 * percentiles; with {@code --warmup-records} it prints a second such line for the steady state,
 * which is the one we want because it leaves out the JVM's and the connection's first seconds:
 * <pre>
 * 20000 records sent, 1687.76 records/sec (1.65 MB/sec), 7227.18 ms avg latency, 9374.00 ms max latency, 8611 ms 50th, 9320 ms 95th, 9358 ms 99th, 9370 ms 99.9th.
 * 18000 steady state records sent, 1702.44 records/sec (1.66 MB/sec), ...
 * </pre>
 * Latencies are from {@code send()} to the acknowledgement, so they include time queued in the
 * producer's buffer. {@link FixedRateLatency} prints the same line, with latencies from each record's due time.
 */
public record ProducerSummary(
        long records, double recordsPerSec, double mbPerSec, double p50Ms, double p99Ms, double p999Ms, double maxMs) {

    private static final Pattern FINAL_LINE = Pattern.compile(
            "^(\\d+) (steady state )?records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), "
                    + "[\\d.]+ ms avg latency, ([\\d.]+) ms max latency, ([\\d.]+) ms 50th, [\\d.]+ ms 95th, "
                    + "([\\d.]+) ms 99th, ([\\d.]+) ms 99.9th\\.?\\s*$");

    /** The steady-state summary if the tool printed one, else the whole-run summary, else empty. */
    public static Optional<ProducerSummary> parse(List<String> lines) {
        ProducerSummary whole = null;
        for (String line : lines) {
            Matcher m = FINAL_LINE.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            ProducerSummary s = new ProducerSummary(Long.parseLong(m.group(1)), Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4)), Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7)),
                    Double.parseDouble(m.group(8)), Double.parseDouble(m.group(5)));
            if (m.group(2) != null) {
                return Optional.of(s);
            }
            whole = s;
        }
        return Optional.ofNullable(whole);
    }
}
