package io.kaas.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProducerSummaryTest {

    // Captured from kafka-tools 4.4.0 ProducerPerformance against Apache Kafka on loopback.
    private static final List<String> WITH_WARMUP = List.of(
            "Warmup first 2000 records. Steady state results will print after the complete test summary.",
            "In steady state.",
            "2081 records sent, 410.5 records/sec (0.40 MB/sec), 3956.6 ms avg latency, 4902.0 ms max latency.",
            "20000 records sent, 1687.763713 records/sec (1.65 MB/sec), 7227.18 ms avg latency, 9374.00 ms max latency, "
                    + "8611 ms 50th, 9320 ms 95th, 9358 ms 99th, 9370 ms 99.9th.",
            "18000 steady state records sent, 1702.449636 records/sec (1.66 MB/sec), 7756.26 ms avg latency, "
                    + "9374.00 ms max latency, 8653 ms 50th, 9327 ms 95th, 9358 ms 99th, 9373 ms 99.9th.");

    @Test
    void prefersTheSteadyStateLine() {
        assertThat(ProducerSummary.parse(WITH_WARMUP))
                .contains(new ProducerSummary(18000, 1702.449636, 1.66, 8653, 9358, 9373, 9374));
    }

    @Test
    void fallsBackToTheWholeRunLineWithoutWarmup() {
        assertThat(ProducerSummary.parse(WITH_WARMUP.subList(0, 4)))
                .contains(new ProducerSummary(20000, 1687.763713, 1.65, 8611, 9358, 9370, 9374));
    }

    @Test
    void progressLinesAloneAreNoSummary() {
        // A run killed or failed before the end prints only progress lines: that must read as missing.
        assertThat(ProducerSummary.parse(WITH_WARMUP.subList(0, 3))).isEmpty();
    }
}
