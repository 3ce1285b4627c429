package io.kaas.bench;

import java.util.List;

/**
 * One system's figures for one scenario. Within a round the load processes ran at the same time,
 * so their rates add up and the round's latency is the worst process's percentile (percentiles of
 * separate processes cannot be merged exactly; the worst is the honest upper bound). Across rounds
 * the figures are averaged and {@code spread} is (max - min) / mean of the rounds' records/s, a
 * quick measure of how noisy the machine was.
 *
 * <p>Latencies are {@code NaN} for consumers, which report none.
 */
public record Measurement(double recordsPerSec, double mbPerSec, double p50Ms, double p99Ms, int rounds, double spread) {

    /** One round: the summaries of the processes that ran together. */
    public record Round(List<ProducerSummary> producers, List<ConsumerSummary> consumers) {

        double recordsPerSec() {
            return producers.stream().mapToDouble(ProducerSummary::recordsPerSec).sum()
                    + consumers.stream().mapToDouble(ConsumerSummary::recordsPerSec).sum();
        }

        double mbPerSec() {
            return producers.stream().mapToDouble(ProducerSummary::mbPerSec).sum()
                    + consumers.stream().mapToDouble(ConsumerSummary::mbPerSec).sum();
        }

        double p50Ms() {
            return producers.stream().mapToDouble(ProducerSummary::p50Ms).max().orElse(Double.NaN);
        }

        double p99Ms() {
            return producers.stream().mapToDouble(ProducerSummary::p99Ms).max().orElse(Double.NaN);
        }
    }

    public static Measurement of(List<Round> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("a measurement needs at least one round");
        }
        double rate = rounds.stream().mapToDouble(Round::recordsPerSec).average().orElseThrow();
        double max = rounds.stream().mapToDouble(Round::recordsPerSec).max().orElseThrow();
        double min = rounds.stream().mapToDouble(Round::recordsPerSec).min().orElseThrow();
        return new Measurement(rate,
                rounds.stream().mapToDouble(Round::mbPerSec).average().orElseThrow(),
                rounds.stream().mapToDouble(Round::p50Ms).average().orElse(Double.NaN),
                rounds.stream().mapToDouble(Round::p99Ms).average().orElse(Double.NaN),
                rounds.size(),
                rate == 0 ? 0 : (max - min) / rate);
    }
}
