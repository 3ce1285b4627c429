package io.kaas.bench;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One system's figures for one scenario. Within a round the load processes ran at the same time,
 * so their rates add up and the round's latency is the worst process's percentile (percentiles of
 * separate processes cannot be merged exactly; the worst is the honest upper bound). Across rounds
 * the figures are averaged and {@code spread} is (max - min) / mean of the rounds' records/s, a
 * quick measure of how noisy the machine was. {@code runSeconds} is how long the measured part of a
 * round lasted (its slowest process), so a reader can check that runs were as long as asked.
 * {@code brokerMicrosPerRecord} is the broker process's CPU time (all threads) over a round divided
 * by the records the round moved, averaged over the rounds that recorded it ({@code NaN} if none).
 *
 * <p>Latencies are {@code NaN} for consumers, which report none. {@code maxMs} is the highest of all rounds;
 * {@code p99RoundsMs} is the range of the rounds' p99 (how stable it is). Where every round left its latencies as
 * HdrHistogram logs ({@link FixedRateLatency}), {@link #merged} replaces the percentiles with those of all the
 * rounds' records together, which is exact, where the worst process's averaged over rounds is only a bound.
 */
public record Measurement(double recordsPerSec, double mbPerSec, double p50Ms, double p99Ms, double p999Ms,
                          double maxMs, Range p99RoundsMs, int rounds, double spread, double runSeconds,
                          double brokerMicrosPerRecord) {

    /** The lowest and highest of a figure over the rounds. */
    public record Range(double min, double max) {
        static final Range NONE = new Range(Double.NaN, Double.NaN);
    }

    /** This measurement with the percentiles of every round's records together. */
    Measurement merged(LatencyLogs.Merged m) {
        return new Measurement(recordsPerSec, mbPerSec, m.p50Ms(), m.p99Ms(), m.p999Ms(), m.maxMs(), m.p99RoundsMs(),
                rounds, spread, runSeconds, brokerMicrosPerRecord);
    }

    /** The broker's CPU seconds over one round, and the records that round produced or consumed. */
    public record BrokerCpu(double seconds, long records) {
        double microsPerRecord() {
            return records == 0 ? Double.NaN : seconds * 1e6 / records;
        }
    }

    /** One round: the summaries of the processes that ran together, and the broker's CPU if recorded. */
    public record Round(List<ProducerSummary> producers, List<ConsumerSummary> consumers, Optional<BrokerCpu> cpu) {

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

        double p999Ms() {
            return producers.stream().mapToDouble(ProducerSummary::p999Ms).max().orElse(Double.NaN);
        }

        double maxMs() {
            return producers.stream().mapToDouble(ProducerSummary::maxMs).max().orElse(Double.NaN);
        }

        /** How long the round measured: its slowest process's measured records over its rate. */
        double seconds() {
            return Stream.concat(
                    producers.stream().map(p -> p.records() / p.recordsPerSec()),
                    consumers.stream().map(c -> c.records() / c.recordsPerSec()))
                    .mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
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
                rounds.stream().mapToDouble(Round::p999Ms).average().orElse(Double.NaN),
                rounds.stream().mapToDouble(Round::maxMs).max().orElse(Double.NaN),
                producersOf(rounds)
                        ? new Range(rounds.stream().mapToDouble(Round::p99Ms).min().orElseThrow(),
                                rounds.stream().mapToDouble(Round::p99Ms).max().orElseThrow())
                        : Range.NONE,
                rounds.size(),
                rate == 0 ? 0 : (max - min) / rate,
                rounds.stream().mapToDouble(Round::seconds).average().orElse(Double.NaN),
                rounds.stream().flatMap(r -> r.cpu().stream()).mapToDouble(BrokerCpu::microsPerRecord).average()
                        .orElse(Double.NaN));
    }

    private static boolean producersOf(List<Round> rounds) {
        return rounds.stream().allMatch(r -> !r.producers().isEmpty());
    }
}
