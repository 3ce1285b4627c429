package io.kaas.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Producers at a fixed rate, each record's latency measured from the moment it was <em>due</em>, not from when
 * {@code send()} was called: a stall of the broker delays every record scheduled during it, and each of those counts
 * its whole wait (no coordinated omission, which Apache's {@code ProducerPerformance} has, since it throttles by
 * sleeping after the send). Each producer is a {@link KafkaProducer} of its own (a connection of its own) with a
 * thread that waits for each record's due time.
 *
 * <p>Latencies go into an HdrHistogram (microsecond resolution, up to a minute); after the warm-up, every second's
 * interval is written to {@code --histogram-log} (HdrHistogram's interval log), from which bench/run.sh's report
 * merges rounds exactly and {@link LatencyPlots} draws. The last line has {@code ProducerPerformance}'s form
 * ({@link ProducerSummary} reads it), with fractional milliseconds.
 *
 * <p>Usage: {@code FixedRateLatency --bootstrap-server B --topic T --producers N --rate R --record-size S
 * --seconds D --warmup-seconds W --histogram-log FILE [--command-property k=v ...]}, R per producer.
 * Exit 1 when any send failed (each failure is printed with its exception).
 */
public final class FixedRateLatency {
    private static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(1);

    private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        System.exit(new FixedRateLatency().run(a, System.out));
    }

    /** The command line. */
    record Args(String bootstrap, String topic, int producers, double rate, int recordSize, int seconds,
                int warmupSeconds, Path histogramLog, List<String> properties) {
        static Args parse(String[] args) {
            String bootstrap = null, topic = null;
            Path log = null;
            int producers = 1, size = 100, seconds = 10, warmup = 2;
            double rate = 100;
            List<String> props = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--bootstrap-server" -> bootstrap = args[++i];
                    case "--topic" -> topic = args[++i];
                    case "--producers" -> producers = Integer.parseInt(args[++i]);
                    case "--rate" -> rate = Double.parseDouble(args[++i]);
                    case "--record-size" -> size = Integer.parseInt(args[++i]);
                    case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                    case "--warmup-seconds" -> warmup = Integer.parseInt(args[++i]);
                    case "--histogram-log" -> log = Path.of(args[++i]);
                    case "--command-property" -> {
                        // As ProducerPerformance: every following word that is k=v.
                        while (i + 1 < args.length && args[i + 1].contains("=") && !args[i + 1].startsWith("--")) {
                            props.add(args[++i]);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
            }
            if (bootstrap == null || topic == null || log == null || rate <= 0 || producers < 1) {
                throw new IllegalArgumentException("usage: FixedRateLatency --bootstrap-server B --topic T --producers N"
                        + " --rate R --record-size S --seconds D --warmup-seconds W --histogram-log FILE"
                        + " [--command-property k=v ...]");
            }
            return new Args(bootstrap, topic, producers, rate, size, seconds, warmup, log, List.copyOf(props));
        }
    }

    int run(Args a, PrintStream out) throws IOException, InterruptedException {
        byte[] value = new byte[a.recordSize()];
        new Random(42).nextBytes(value);
        long intervalNanos = (long) (1e9 / a.rate());
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        for (int i = 0; i < a.producers(); i++) {
            producers.add(new KafkaProducer<>(config(a, i)));
        }
        // Connections and metadata first, so the first due record does not pay them.
        for (KafkaProducer<byte[], byte[]> p : producers) {
            p.partitionsFor(a.topic());
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        long steady = start + TimeUnit.SECONDS.toNanos(a.warmupSeconds());
        long end = steady + TimeUnit.SECONDS.toNanos(a.seconds());
        CountDownLatch done = new CountDownLatch(producers.size());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < producers.size(); i++) {
            KafkaProducer<byte[], byte[]> p = producers.get(i);
            // Producers start spread over one interval, as independent clients would, not all at once.
            long first = start + intervalNanos * i / producers.size();
            Thread t = new Thread(() -> {
                try {
                    send(p, a.topic(), value, first, intervalNanos, end);
                } finally {
                    done.countDown();
                }
            }, "fixed-rate-producer-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);
        try (PrintStream logOut = new PrintStream(new FileOutputStream(a.histogramLog().toFile()), true, "UTF-8")) {
            HistogramLogWriter writer = new HistogramLogWriter(logOut);
            writer.outputLogFormatVersion();
            writer.outputLegend();
            Histogram interval = null;
            long nextReport = steady;
            // Warm-up records are recorded and then discarded with the first interval taken at the steady point.
            parkUntil(steady);
            recorder.getIntervalHistogram();
            long steadyMillis = System.currentTimeMillis();
            writer.outputStartTime(steadyMillis);
            writer.setBaseTime(steadyMillis);
            boolean finished = false;
            while (!finished) {
                nextReport += TimeUnit.SECONDS.toNanos(1);
                parkUntil(nextReport);
                finished = done.getCount() == 0 && System.nanoTime() >= end;
                if (finished) {
                    // Every acknowledgement of the last records is in before the last interval is taken.
                    producers.forEach(KafkaProducer::flush);
                }
                interval = recorder.getIntervalHistogram(interval);
                writer.outputIntervalHistogram(interval);
                total.add(interval);
            }
        }
        producers.forEach(KafkaProducer::close);
        long n = total.getTotalCount();
        double seconds = a.seconds();
        out.println(String.format(Locale.ROOT,
                "%d steady state records sent, %.2f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency,"
                        + " %.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th.",
                n, n / seconds, n * (double) a.recordSize() / seconds / (1024 * 1024), total.getMean() / 1000,
                total.getMaxValue() / 1000.0, ms(total, 50), ms(total, 95), ms(total, 99), ms(total, 99.9)));
        if (errors.get() > 0) {
            System.err.println(errors.get() + " of " + sent.get() + " sends failed");
            return 1;
        }
        return 0;
    }

    private void send(KafkaProducer<byte[], byte[]> p, String topic, byte[] value, long first, long interval, long end) {
        for (long due = first; due < end; due += interval) {
            parkUntil(due);
            final long dueAt = due;
            sent.incrementAndGet();
            p.send(new ProducerRecord<>(topic, value), (md, e) -> {
                if (e != null) {
                    errors.incrementAndGet();
                    e.printStackTrace();
                    return;
                }
                long micros = (System.nanoTime() - dueAt) / 1000;
                recorder.recordValue(Math.min(Math.max(micros, 0), MAX_LATENCY_MICROS));
            });
        }
    }

    private static Properties config(Args a, int index) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.bootstrap());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-fixed-rate-" + index);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        for (String kv : a.properties()) {
            int eq = kv.indexOf('=');
            p.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return p;
    }

    private static void parkUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }
}
