package io.kaas.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyLogsTest {
    @TempDir
    Path dir;

    @Test
    void mergesEveryRoundsRecordsAndKeepsTheRangeOfTheirP99() throws IOException {
        // Round 1: 990 records at 1 ms and 10 at 50 ms (p99 1 ms); round 2: 980 at 1 ms, 20 at 20 ms (p99 20 ms).
        log("latency-rate.kaas.r1.producer1.hlog", new long[] {1_000, 50_000}, new long[] {990, 10});
        log("latency-rate.kaas.r2.producer1.hlog", new long[] {1_000, 20_000}, new long[] {980, 20});

        LatencyLogs.Merged m = new LatencyLogs(dir).merged("latency-rate", "kaas").orElseThrow();

        assertThat(m.records()).isEqualTo(2004);
        assertThat(m.p50Ms()).isBetween(0.99, 1.01);
        // 30 of 2004 records (each round adds one at 1 ms in each later second) are slow: the merged p99 is in the 20 ms group, the p99.9 in the 50 ms one.
        assertThat(m.p99Ms()).isBetween(19.9, 20.1);
        assertThat(m.p999Ms()).isBetween(49.9, 50.1);
        assertThat(m.maxMs()).isBetween(49.9, 50.1);
        assertThat(m.p99RoundsMs().min()).isBetween(0.99, 1.01);
        assertThat(m.p99RoundsMs().max()).isBetween(19.9, 20.1);
        assertThat(new LatencyLogs(dir).merged("latency-rate", "apache")).isEmpty();
    }

    @Test
    void intervalsArePlacedAlongTheirRoundAndBothChartsAreDrawn() throws IOException {
        log("durable-rate.apache.r1.producer1.hlog", new long[] {2_000}, new long[] {100});
        log("durable-rate.kaas.r1.producer1.hlog", new long[] {1_000}, new long[] {100});

        assertThat(new LatencyLogs(dir).intervals("durable-rate", "kaas"))
                .extracting(LatencyLogs.Interval::startSeconds).containsExactly(0.0, 1.0, 2.0);
        assertThat(LatencyPlots.draw(dir)).containsExactly(
                dir.resolve("durable-rate-percentiles.png"), dir.resolve("durable-rate-over-time.png"));
        assertThat(Files.size(dir.resolve("durable-rate-percentiles.png"))).isGreaterThan(1000);
    }

    /** Three one-second intervals; the first holds the given latencies (microseconds) with their counts. */
    private void log(String name, long[] values, long[] counts) throws IOException {
        try (PrintStream out = new PrintStream(new FileOutputStream(dir.resolve(name).toFile()), true, "UTF-8")) {
            HistogramLogWriter w = new HistogramLogWriter(out);
            long base = 1_700_000_000_000L;
            w.outputStartTime(base);
            w.setBaseTime(base);
            w.outputLegend();
            for (int second = 0; second < 3; second++) {
                Histogram h = new Histogram(60_000_000L, 3);
                if (second == 0) {
                    for (int i = 0; i < values.length; i++) {
                        h.recordValueWithCount(values[i], counts[i]);
                    }
                } else {
                    h.recordValue(values[0]);
                }
                h.setStartTimeStamp(base + second * 1000L);
                h.setEndTimeStamp(base + second * 1000L + 1000);
                w.outputIntervalHistogram(h);
            }
        }
    }
}
