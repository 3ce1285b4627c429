package io.kaas.storage.bench;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * acks=-1 appends of a 1 KiB batch, flush interval 1, on a real directory (java.io.tmpdir, or
 * -Dkaas.bench.dir): throughput, and fsyncs per append printed at the end of each trial. Threads
 * (1, 4, 16) are chosen with JMH's -t; see core-storage/README.md for the command.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class AppendBenchmark {
    @Param({"1", "8"})
    public int partitions;

    private Path dir;
    private DiskStorageEngine engine;
    private Partition[] parts;
    private final AtomicInteger nextThread = new AtomicInteger();
    private final AtomicLong appends = new AtomicLong();
    private ByteBuffer template;

    @State(Scope.Thread)
    public static class Appender {
        Partition partition;
        /** Own copy: the engine stamps baseOffset and epoch into the buffer it is given. */
        ByteBuffer batch;

        @Setup(Level.Trial)
        public void pick(AppendBenchmark b) {
            partition = b.parts[b.nextThread.getAndIncrement() % b.parts.length];
            batch = ByteBuffer.allocate(b.template.limit())
                    .put(b.template.duplicate())
                    .flip();
        }
    }

    @Setup(Level.Trial)
    public void setup() throws IOException {
        Path base = Path.of(System.getProperty("kaas.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(base, "kaas-append-bench");
        engine = new DiskStorageEngine(EngineConfig.defaults(dir));
        engine.createTopic("bench", partitions, TopicConfig.EMPTY);
        parts = new Partition[partitions];
        for (int i = 0; i < partitions; i++) {
            parts[i] = engine.openPartition(new TopicPartition("bench", i));
        }
        template = TestBatches.sized(1024);
    }

    @Benchmark
    public long appendAcksAll(Appender a) throws Exception {
        appends.incrementAndGet();
        return a.partition.append(a.batch.duplicate(), Acks.ALL, -1).get().baseOffset();
    }

    @TearDown(Level.Trial)
    public void teardown() throws IOException {
        long fsyncs = 0;
        for (Partition p : parts) {
            fsyncs += p.fsyncCount();
        }
        System.out.printf(
                "%nfsyncs/append: %d fsyncs / %d appends = %.3f (partitions=%d)%n",
                fsyncs, appends.get(), (double) fsyncs / appends.get(), partitions);
        engine.close();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
