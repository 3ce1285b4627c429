package io.kaas.bench;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * The HdrHistogram interval logs {@link FixedRateLatency} leaves in a results directory, one per measured load
 * process: {@code <scenario>.<system>.r<round>.producer<i>.hlog}, one interval a second, latencies in microseconds.
 * Rounds are merged exactly (a histogram of all their records), unlike the worst-process bound the tools' summary
 * lines allow.
 */
final class LatencyLogs {
    private static final Pattern NAME = Pattern.compile("^([a-z0-9-]+)\\.([a-z]+)\\.r(\\d+)\\.producer\\d+\\.hlog$");

    /** One second of one round: its start (seconds since that round's steady state began) and its records. */
    record Interval(int round, double startSeconds, Histogram histogram) {}

    /** The percentiles of all rounds together, in milliseconds, and the range of the rounds' own p99. */
    record Merged(long records, double p50Ms, double p99Ms, double p999Ms, double maxMs, Measurement.Range p99RoundsMs,
                  Histogram histogram) {}

    private final Path dir;

    LatencyLogs(Path dir) {
        this.dir = dir;
    }

    /** Every interval of {@code scenario} on {@code system}, by round then time; empty when it left no logs. */
    List<Interval> intervals(String scenario, String system) {
        List<Interval> out = new ArrayList<>();
        for (Map.Entry<String, Integer> f : files(scenario, system).entrySet()) {
            try {
                HistogramLogReader reader = new HistogramLogReader(dir.resolve(f.getKey()).toString());
                Histogram h;
                while ((h = (Histogram) reader.nextIntervalHistogram()) != null) {
                    // The reader gives absolute start times; the log's start time is the round's steady point.
                    out.add(new Interval(f.getValue(), h.getStartTimeStamp() / 1000.0 - reader.getStartTimeSec(), h));
                }
            } catch (FileNotFoundException e) {
                throw new UncheckedIOException("cannot read " + f.getKey(), e);
            }
        }
        return out;
    }

    /** All rounds of {@code scenario} on {@code system} merged; empty when it left no logs. */
    Optional<Merged> merged(String scenario, String system) {
        List<Interval> intervals = intervals(scenario, system);
        if (intervals.isEmpty()) {
            return Optional.empty();
        }
        Histogram all = new Histogram(3);
        Map<Integer, Histogram> byRound = new TreeMap<>();
        for (Interval i : intervals) {
            all.add(i.histogram());
            byRound.computeIfAbsent(i.round(), r -> new Histogram(3)).add(i.histogram());
        }
        double lo = Double.MAX_VALUE, hi = 0;
        for (Histogram r : byRound.values()) {
            double p99 = ms(r, 99);
            lo = Math.min(lo, p99);
            hi = Math.max(hi, p99);
        }
        return Optional.of(new Merged(all.getTotalCount(), ms(all, 50), ms(all, 99), ms(all, 99.9),
                all.getMaxValue() / 1000.0, new Measurement.Range(lo, hi), all));
    }

    /** The scenarios that left logs, in name order. */
    List<String> scenarios() {
        return list().stream().map(NAME::matcher).filter(Matcher::matches).map(m -> m.group(1)).distinct().sorted()
                .toList();
    }

    private Map<String, Integer> files(String scenario, String system) {
        Map<String, Integer> out = new TreeMap<>();
        for (String name : list()) {
            Matcher m = NAME.matcher(name);
            if (m.matches() && m.group(1).equals(scenario) && m.group(2).equals(system)) {
                out.put(name, Integer.parseInt(m.group(3)));
            }
        }
        return out;
    }

    private List<String> list() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }
}
