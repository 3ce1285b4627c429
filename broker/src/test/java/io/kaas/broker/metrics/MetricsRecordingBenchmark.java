package io.kaas.broker.metrics;

import io.kaas.broker.api.TrafficObserver;
import io.kaas.protocol.RequestObserver;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.TopicPartition;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What recording metrics costs one Produce request, the part of "metrics on vs off" that a
 * whole-broker run on a shared 2-core machine cannot separate from its noise (bench/history/2026-12-01-metrics.md, "Metrics
 * on vs off"). One operation is everything the broker records for a request of bench/run.sh's shape —
 * 8 partitions x 16 records of 1 KiB: the per-topic traffic counters once per partition, one fsync's
 * histograms (group commit shares at most one fsync per request and partition; counted once per
 * request, as most requests share one), and the request's counter and two latency histograms, with the
 * clock reads the request path makes for them. Divide by 128 for the cost per record.
 * {@link #oneRecordRequest} is the worst case: a request of one record on one partition, as a producer
 * with linger 0 and nothing in flight sends.
 *
 * <p>Run with {@code broker/bench.sh}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsRecordingBenchmark {
    static final int PARTITIONS = 8;
    static final int RECORDS_PER_BATCH = 16;

    private RequestObserver requests;
    private TrafficObserver traffic;
    private EngineObserver engine;
    private TopicPartition partition;

    @Setup
    public void setUp() {
        BrokerMetrics metrics = new BrokerMetrics(true);
        requests = metrics.requests();
        traffic = metrics.traffic();
        engine = metrics.engine();
        partition = new TopicPartition("bench", 0);
    }

    @Benchmark
    public void produceRequest() {
        long decoded = System.nanoTime();
        long started = System.nanoTime();
        for (int p = 0; p < PARTITIONS; p++) {
            traffic.produced("bench", RECORDS_PER_BATCH, RECORDS_PER_BATCH * 1_100L);
        }
        engine.fsynced(partition, 1_200_000, 4);
        requests.answered(ApiKeys.PRODUCE, Errors.NONE, started - decoded, 0, System.nanoTime() - decoded);
    }

    @Benchmark
    public void oneRecordRequest() {
        long decoded = System.nanoTime();
        long started = System.nanoTime();
        traffic.produced("bench", 1, 170);
        engine.fsynced(partition, 1_200_000, 1);
        requests.answered(ApiKeys.PRODUCE, Errors.NONE, started - decoded, 0, System.nanoTime() - decoded);
    }
}
