package io.kaas.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Turns one results directory written by bench/run.sh into the table the README quotes.
 *
 * <p>Reads: {@code meta.txt} and {@code disk.txt} (printed first, verbatim); {@code scenarios.tsv}
 * ({@code id<TAB>label} in display order); the runs' stdout files (see {@link RunFile});
 * {@code <scenario>.<system>.r<round>.cpu} holding the broker's CPU seconds and the records of that
 * measured run (a missing or unreadable one prints "-");
 * {@code <scenario>.<system>.failed} markers holding why a scenario errored; and
 * {@code kaas.unavailable} holding why kaas could not be run at all; and the fixed-rate runs' latency logs
 * ({@link LatencyLogs}).
 *
 * <p>Usage: {@code Report <resultsDir>}. Exit 1 when any scenario errored or a run's output has
 * no summary, 0 otherwise (kaas being unavailable is reported, not an error).
 */
public final class Report {

    static final List<String> SYSTEMS = List.of("apache", "kaas");

    private final Path dir;
    private final LatencyLogs latencies;
    private boolean failed;

    Report(Path dir) {
        this.dir = dir;
        this.latencies = new LatencyLogs(dir);
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: Report <resultsDir>");
            System.exit(2);
        }
        Report report = new Report(Path.of(args[0]));
        report.print(System.out);
        System.exit(report.failed ? 1 : 0);
    }

    boolean failed() {
        return failed;
    }

    void print(PrintStream out) {
        readIfPresent("meta.txt").ifPresent(out::print);
        readIfPresent("disk.txt").ifPresent(out::print);
        Optional<String> kaasMissing = readIfPresent("kaas.unavailable").map(String::strip);
        out.println();
        out.println(String.format(Locale.ROOT, "%-44s %-12s %12s %9s %9s %9s %9s %9s %13s %11s %6s %7s %6s",
                "scenario", "system", "records/s", "MB/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "p99 rounds",
                "cpu us/rec", "rounds", "spread", "run s"));
        for (Map.Entry<String, String> scenario : scenarios().entrySet()) {
            Map<String, Measurement> bySystem = new LinkedHashMap<>();
            String label = scenario.getValue();
            for (String system : SYSTEMS) {
                String row = String.format(Locale.ROOT, "%-44s %-12s ", label, label(system));
                label = "";
                // The first reason is the cause; later ones (skipped rounds) follow from it.
                Optional<String> failure = readIfPresent(scenario.getKey() + "." + system + ".failed")
                        .map(text -> text.strip().lines().findFirst().orElse("(no reason recorded)"));
                if (system.equals("kaas") && kaasMissing.isPresent()) {
                    out.println(row + "not available: " + kaasMissing.get());
                } else if (failure.isPresent()) {
                    failed = true;
                    out.println(row + "ERROR: " + failure.get());
                } else {
                    Optional<Measurement> m = measure(scenario.getKey(), system, out, row);
                    m.ifPresent(v -> {
                        bySystem.put(system, v);
                        out.println(row + String.format(Locale.ROOT,
                                "%12.0f %9.2f %9s %9s %9s %9s %13s %11s %6d %6.0f%% %6.1f",
                                v.recordsPerSec(), v.mbPerSec(), ms(v.p50Ms()), ms(v.p99Ms()), ms(v.p999Ms()),
                                ms(v.maxMs()), range(v.p99RoundsMs()), micros(v.brokerMicrosPerRecord()),
                                v.rounds(), v.spread() * 100, v.runSeconds()));
                    });
                }
            }
            if (bySystem.size() == 2) {
                Measurement a = bySystem.get("apache");
                Measurement k = bySystem.get("kaas");
                out.println(String.format(Locale.ROOT, "%-44s %-12s %11.2fx %8.2fx %9s %9s %9s %9s %13s %11s", "",
                        ratioLabel(), k.recordsPerSec() / a.recordsPerSec(), k.mbPerSec() / a.mbPerSec(),
                        ratio(k.p50Ms(), a.p50Ms()), ratio(k.p99Ms(), a.p99Ms()), ratio(k.p999Ms(), a.p999Ms()),
                        ratio(k.maxMs(), a.maxMs()), "",
                        ratio(k.brokerMicrosPerRecord(), a.brokerMicrosPerRecord())));
            }
        }
        out.println();
        out.println(ratioLabel() + ": above 1 is better for records/s and MB/s, below 1 is better for latency and CPU.");
        out.println("cpu us/rec: the broker process's CPU time (all threads) per record moved, over the measured runs.");
        out.println("Fixed-rate rows (HdrHistogram logs): latency from each record's due time, percentiles of all rounds'"
                + " records merged; p99 rounds: the lowest and highest round's p99.");
    }

    /** What the table calls a slot: {@code label.<system>} when run.sh wrote one (kaas against kaas), else its id. */
    private String label(String system) {
        return readIfPresent("label." + system).map(String::strip).filter(s -> !s.isEmpty()).orElse(system);
    }

    private String ratioLabel() {
        return label("kaas") + "/" + label("apache");
    }

    private Optional<Measurement> measure(String scenario, String system, PrintStream out, String row) {
        Map<Integer, List<RunFile>> rounds = new TreeMap<>();
        for (RunFile run : runFiles()) {
            if (run.scenario().equals(scenario) && run.system().equals(system)) {
                rounds.computeIfAbsent(run.round(), r -> new ArrayList<>()).add(run);
            }
        }
        if (rounds.isEmpty()) {
            failed = true;
            out.println(row + "ERROR: no runs recorded");
            return Optional.empty();
        }
        List<Measurement.Round> parsed = new ArrayList<>();
        for (List<RunFile> runs : rounds.values()) {
            List<ProducerSummary> producers = new ArrayList<>();
            List<ConsumerSummary> consumers = new ArrayList<>();
            for (RunFile run : runs) {
                List<String> lines = lines(run.path());
                boolean ok = run.role() == RunFile.Role.PRODUCER
                        ? ProducerSummary.parse(lines).map(producers::add).orElse(false)
                        : ConsumerSummary.parse(lines).map(consumers::add).orElse(false);
                if (!ok) {
                    failed = true;
                    out.println(row + "ERROR: no summary in " + run.path());
                    return Optional.empty();
                }
            }
            parsed.add(new Measurement.Round(producers, consumers, brokerCpu(runs.get(0).cpuFileName())));
        }
        Measurement m = Measurement.of(parsed);
        return Optional.of(latencies.merged(scenario, system).map(m::merged).orElse(m));
    }

    /** {@code <cpu seconds> <records>}, written by run.sh around each measured run. */
    private Optional<Measurement.BrokerCpu> brokerCpu(String name) {
        return readIfPresent(name).map(String::strip).flatMap(text -> {
            String[] cols = text.split("\\s+");
            try {
                return cols.length == 2
                        ? Optional.of(new Measurement.BrokerCpu(Double.parseDouble(cols[0]), Long.parseLong(cols[1])))
                        : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    private Map<String, String> scenarios() {
        Map<String, String> scenarios = new LinkedHashMap<>();
        for (String line : lines(dir.resolve("scenarios.tsv"))) {
            String[] cols = line.split("\t", 2);
            if (cols.length == 2) {
                scenarios.put(cols[0], cols[1]);
            }
        }
        return scenarios;
    }

    private List<RunFile> runFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(RunFile::of).flatMap(Optional::stream).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private Optional<String> readIfPresent(String name) {
        Path file = dir.resolve(name);
        return Files.exists(file) ? Optional.of(String.join("\n", lines(file)) + "\n") : Optional.empty();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static String ms(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : value < 100 ? "%.1f" : "%.0f", value);
    }

    private static String range(Measurement.Range r) {
        return Double.isNaN(r.min()) ? "-" : ms(r.min()) + "-" + ms(r.max());
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String ratio(double kaas, double apache) {
        if (Double.isNaN(kaas) || Double.isNaN(apache) || apache == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2fx", kaas / apache);
    }
}
