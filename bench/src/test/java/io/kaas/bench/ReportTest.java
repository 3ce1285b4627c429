package io.kaas.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    @TempDir
    Path dir;

    @BeforeEach
    void scenarios() throws IOException {
        Files.writeString(dir.resolve("scenarios.tsv"), "durable\t1 durable\nconsume-1\t3 consume, 1 consumer\n");
        Files.writeString(dir.resolve("disk.txt"), "disk: 4 KiB write+fdatasync: 1000 /s\n");
    }

    @Test
    void sumsConcurrentProducersAveragesRoundsAndPrintsTheRatio() throws IOException {
        // apache: round 1 = 100 + 100, round 2 = 150 + 150 -> mean 250 records/s, worst p99 40 then 60 -> 50;
        // each process measured 1000 records: rounds of 10 s and 6.7 s -> 8.3 s per run.
        producer("durable.apache.r1.producer1.out", 100, 10, 40);
        producer("durable.apache.r1.producer2.out", 100, 12, 30);
        producer("durable.apache.r2.producer1.out", 150, 10, 60);
        producer("durable.apache.r2.producer2.out", 150, 10, 50);
        // kaas: 500 records/s, p99 25 -> 2.00x throughput, 0.50x p99.
        producer("durable.kaas.r1.producer1.out", 250, 5, 25);
        producer("durable.kaas.r1.producer2.out", 250, 5, 20);
        // Broker CPU: apache 2 s then 4 s over 100000 records each -> 30 us/record; kaas 1.5 s -> 15 (0.50x).
        Files.writeString(dir.resolve("durable.apache.r1.cpu"), "2.00 100000\n");
        Files.writeString(dir.resolve("durable.apache.r2.cpu"), "4.00 100000\n");
        Files.writeString(dir.resolve("durable.kaas.r1.cpu"), "1.50 100000\n");
        consumer("consume-1.apache.r1.consumer1.out", 1000);
        consumer("consume-1.kaas.r1.consumer1.out", 1500);
        // Warm-up output is not a measured round.
        producer("durable.kaas.w.producer1.out", 1, 1, 1);

        String table = render();

        assertThat(table).startsWith("disk: 4 KiB write+fdatasync: 1000 /s");
        assertThat(table).containsPattern("1 durable\\s+apache\\s+250 .* 50\\.0 +9\\.00 +9\\.00 +40\\.0-60\\.0 +30\\.0 +2 +40% +8\\.3");
        assertThat(table).containsPattern("kaas/apache\\s+2\\.00x\\s+\\S+\\s+\\S+\\s+0\\.50x\\s+1\\.00x\\s+1\\.00x\\s+0\\.50x");
        // No CPU recorded for the consume rows: a dash, and no ratio.
        assertThat(table).containsPattern("3 consume, 1 consumer\\s+apache\\s+1000 .* - +- +- +1 ");
        assertThat(table).containsPattern("kaas/apache\\s+1\\.50x\\s+\\S+\\s+-\\s+-");
        assertThat(report().failed()).isFalse();
    }

    @Test
    void slotsPrintTheLabelsRunShWroteForKaasAgainstKaas() throws IOException {
        Files.writeString(dir.resolve("label.apache"), "metrics-off\n");
        Files.writeString(dir.resolve("label.kaas"), "metrics-on\n");
        producer("durable.apache.r1.producer1.out", 100, 10, 40);
        producer("durable.kaas.r1.producer1.out", 100, 10, 40);
        consumer("consume-1.apache.r1.consumer1.out", 1000);
        consumer("consume-1.kaas.r1.consumer1.out", 1000);

        String table = render();

        assertThat(table).containsPattern("1 durable\\s+metrics-off\\s+100 ").containsPattern("\\s+metrics-on\\s+100 ")
                .containsPattern("metrics-on/metrics-off\\s+1\\.00x").doesNotContain("kaas/apache");
    }

    @Test
    void kaasUnavailableIsReportedButNotAnError() throws IOException {
        producer("durable.apache.r1.producer1.out", 100, 10, 40);
        consumer("consume-1.apache.r1.consumer1.out", 1000);
        Files.writeString(dir.resolve("kaas.unavailable"), "kaas serve not available\n");

        assertThat(render()).contains("kaas         not available: kaas serve not available").doesNotContain("kaas/apache  ");
        assertThat(report().failed()).isFalse();
    }

    @Test
    void aFailedScenarioOrATruncatedRunIsAnError() throws IOException {
        Files.writeString(dir.resolve("durable.kaas.failed"), "producer 2 exited with 1\n");
        producer("durable.apache.r1.producer1.out", 100, 10, 40);
        Files.writeString(dir.resolve("durable.apache.r1.cpu"), "not a cpu line\n");
        Files.writeString(dir.resolve("consume-1.apache.r1.consumer1.out"), "start.time, end.time\n");
        consumer("consume-1.kaas.r1.consumer1.out", 1500);

        String table = render();

        assertThat(table).contains("ERROR: producer 2 exited with 1").contains("ERROR: no summary in");
        // An unreadable CPU record is a dash, not an error: the rates still stand.
        assertThat(table).containsPattern("1 durable\\s+apache\\s+100 .* 40\\.0-40\\.0 +- +1 ");
        assertThat(report().failed()).isTrue();
    }

    private Report report() {
        Report report = new Report(dir);
        report.print(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        return report;
    }

    private String render() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Report(dir).print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private void producer(String name, double rate, double p50, double p99) throws IOException {
        Files.writeString(dir.resolve(name), String.format(java.util.Locale.ROOT,
                "1000 records sent, %.1f records/sec (%.2f MB/sec), 1.0 ms avg latency, 9.0 ms max latency, "
                        + "%.0f ms 50th, 1 ms 95th, %.0f ms 99th, 9 ms 99.9th.%n", rate, rate / 1000, p50, p99));
    }

    private void consumer(String name, double rate) throws IOException {
        Files.writeString(dir.resolve(name), "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
                + "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
                + "a, b, 1, 1, 1000, 1, 5, 5, " + rate / 1000 + ", " + rate + "\n");
    }
}
