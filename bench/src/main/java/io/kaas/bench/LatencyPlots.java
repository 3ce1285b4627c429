package io.kaas.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Locale;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws the fixed-rate rows of one bench/run.sh results directory as PNG files beside the logs, for every scenario
 * that left {@link LatencyLogs}:
 *
 * <ul>
 *   <li>{@code <scenario>-percentiles.png}: HdrHistogram's percentile plot, both brokers on one chart, all rounds'
 *       records merged; the x axis is {@code 1 / (1 - percentile)} on a log scale (so 90%, 99%, 99.9% are evenly
 *       spaced), latency on a log scale;
 *   <li>{@code <scenario>-over-time.png}: each second's p99 and max along the measured rounds, one after the other,
 *       so a periodic stall shows as a comb and a one-off as a single spike.
 * </ul>
 *
 * <p>Usage: {@code LatencyPlots <resultsDir>}; prints the files written.
 */
public final class LatencyPlots {
    private static final int WIDTH = 900, HEIGHT = 420;
    private static final Map<String, Color> COLOURS = Map.of("apache", new Color(0x1f77b4), "kaas", new Color(0xd62728));

    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (args.length != 1) {
            System.err.println("usage: LatencyPlots <resultsDir>");
            System.exit(2);
        }
        for (Path p : draw(Path.of(args[0]))) {
            System.out.println(p);
        }
    }

    static List<Path> draw(Path dir) throws IOException {
        LatencyLogs logs = new LatencyLogs(dir);
        List<Path> written = new ArrayList<>();
        for (String scenario : logs.scenarios()) {
            written.add(percentiles(dir, logs, scenario));
            written.add(overTime(dir, logs, scenario));
        }
        return written;
    }

    private static Path percentiles(Path dir, LatencyLogs logs, String scenario) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String system : Report.SYSTEMS) {
            logs.merged(scenario, system).ifPresent(m -> data.addSeries(percentileSeries(label(dir, system), m)));
        }
        LogAxis x = new LogAxis("percentile");
        x.setSmallestValue(1);
        x.setTickUnit(new NumberTickUnit(1));
        x.setNumberFormatOverride(new PercentileFormat());
        LogAxis y = logMillis("latency ms (from each record's due time)");
        return write(dir, scenario + "-percentiles.png", scenario + ": latency by percentile, all rounds", data, x, y,
                false);
    }

    private static XYSeries percentileSeries(String label, LatencyLogs.Merged m) {
        XYSeries s = new XYSeries(label + String.format(
                Locale.ROOT, " (p99 %.2f ms, p99.9 %.2f ms, max %.1f ms)", m.p99Ms(), m.p999Ms(), m.maxMs()));
        Histogram h = m.histogram();
        for (HistogramIterationValue v : h.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo() / 100.0;
            if (p >= 1.0) {
                break;
            }
            s.add(1 / (1 - p), Math.max(v.getValueIteratedTo() / 1000.0, 0.01));
        }
        // The maximum, at the last record's own percentile.
        s.add((double) h.getTotalCount(), Math.max(h.getMaxValue() / 1000.0, 0.01));
        return s;
    }

    private static Path overTime(Path dir, LatencyLogs logs, String scenario) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String system : Report.SYSTEMS) {
            List<LatencyLogs.Interval> intervals = logs.intervals(scenario, system);
            if (intervals.isEmpty()) {
                continue;
            }
            XYSeries p99 = new XYSeries(label(dir, system) + " p99 per second");
            XYSeries max = new XYSeries(label(dir, system) + " max per second");
            // Rounds one after the other along the axis, each as long as its last interval.
            double offset = 0, roundEnd = 0;
            int round = intervals.get(0).round();
            for (LatencyLogs.Interval i : intervals) {
                if (i.round() != round) {
                    offset = roundEnd;
                    round = i.round();
                }
                double t = offset + i.startSeconds();
                roundEnd = t + 1;
                if (i.histogram().getTotalCount() > 0) {
                    p99.add(t, Math.max(LatencyLogs.ms(i.histogram(), 99), 0.01));
                    max.add(t, Math.max(i.histogram().getMaxValue() / 1000.0, 0.01));
                }
            }
            data.addSeries(p99);
            data.addSeries(max);
        }
        NumberAxis x = new NumberAxis("seconds of measured rounds, one after the other");
        LogAxis y = logMillis("latency ms");
        return write(dir, scenario + "-over-time.png", scenario + ": p99 and max of each second", data, x, y, true);
    }

    private static Path write(Path dir, String name, String title, XYSeriesCollection data,
                              org.jfree.chart.axis.ValueAxis x, org.jfree.chart.axis.ValueAxis y, boolean dashedMax)
            throws IOException {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            String key = data.getSeriesKey(i).toString();
            String system = Report.SYSTEMS.stream().filter(s -> key.startsWith(labelPrefix(dir, s))).findFirst()
                    .orElse("kaas");
            r.setSeriesPaint(i, COLOURS.getOrDefault(system, Color.DARK_GRAY));
            boolean isMax = dashedMax && key.contains(" max ");
            r.setSeriesStroke(i, isMax
                    ? new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f)
                    : new BasicStroke(1.6f));
        }
        XYPlot plot = new XYPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        Path file = dir.resolve(name);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }

    /** Milliseconds on a log scale with a tick at each power of ten, written as plain numbers. */
    private static LogAxis logMillis(String label) {
        LogAxis y = new LogAxis(label);
        y.setSmallestValue(0.01);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("0.##", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        return y;
    }

    /** The x value {@code 1 / (1 - p)} written as the percentile it stands for: 10 is "90%", 1000 "99.9%". */
    private static final class PercentileFormat extends NumberFormat {
        private final DecimalFormat digits = new DecimalFormat("0.####", DecimalFormatSymbols.getInstance(Locale.ROOT));

        @Override
        public StringBuffer format(double x, StringBuffer to, FieldPosition pos) {
            return to.append(digits.format(100 * (1 - 1 / x))).append('%');
        }

        @Override
        public StringBuffer format(long x, StringBuffer to, FieldPosition pos) {
            return format((double) x, to, pos);
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("axis labels are only written");
        }
    }

    private static String labelPrefix(Path dir, String system) {
        return label(dir, system) + " ";
    }

    /** What run.sh named the slot ({@code label.<system>}), else the system's id. */
    private static String label(Path dir, String system) {
        Path f = dir.resolve("label." + system);
        try {
            return Files.exists(f) ? Files.readString(f).strip() : system;
        } catch (IOException e) {
            return system;
        }
    }
}
