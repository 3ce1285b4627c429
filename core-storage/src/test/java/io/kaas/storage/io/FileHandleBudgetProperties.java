package io.kaas.storage.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.FileSlice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The handle budget under concurrent use of a real engine with a tiny ceiling: appends (acks=all)
 * and rolls, copying reads, zero-copy sends held for a while before they transfer, DeleteRecords and
 * finally topic deletion with sends still in flight. Whatever eviction does, no read, fsync or
 * transfer ever meets a channel closed under it, every slice transfers whole, the batch it starts
 * with is the one asked for, and once everything is let go the open channels are back under the
 * ceiling.
 */
class FileHandleBudgetProperties {
    private static final int PARTITIONS = 12;
    private static final String TOPIC = "t";

    @Property(tries = 6)
    void evictionNeverClosesAChannelInUse(@ForAll @IntRange(min = 16, max = 24) int ceiling, @ForAll long seed)
            throws Exception {
        Path root = Files.createTempDirectory("kaas-handles");
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<FileSlice> inFlight = new ConcurrentLinkedQueue<>();
        try {
            DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(root)
                    .withMaxOpenFiles(ceiling)
                    .withSegmentBytes(2048)
                    .withIndexIntervalBytes(256));
            engine.createTopic(TOPIC, PARTITIONS, TopicConfig.EMPTY);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = List.of(
                    worker("appender-1", start, errors, r -> append(engine, r)),
                    worker("appender-2", start, errors, r -> append(engine, r)),
                    worker("reader", start, errors, r -> read(engine, r)),
                    worker("sender-1", start, errors, r -> send(engine, r, inFlight)),
                    worker("sender-2", start, errors, r -> send(engine, r, inFlight)),
                    worker("deleter", start, errors, r -> deleteRecords(engine, r)));
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertThat(errors).isEmpty();
            // Topic deletion with sends in flight: the held slices still transfer whole.
            Random r = new Random(seed);
            for (int i = 0; i < 6; i++) {
                FileSlice s = slice(engine, r);
                if (s != null) {
                    inFlight.add(s);
                }
            }
            engine.deleteTopic(TOPIC);
            for (FileSlice s; (s = inFlight.poll()) != null; ) {
                transferWhole(s);
            }
            assertThat(engine.files().openChannels()).isZero();
            engine.close();
        } finally {
            try (Stream<Path> all = Files.walk(root)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private interface Step {
        void run(Random r) throws Exception;
    }

    private static Thread worker(
            String name, CountDownLatch start, ConcurrentLinkedQueue<Throwable> errors, Step step) {
        long seed = name.hashCode();
        return new Thread(
                () -> {
                    Random r = new Random(seed);
                    try {
                        start.await();
                        for (int i = 0; i < 150; i++) {
                            step.run(r);
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                },
                "budget-" + name);
    }

    private static PartitionLog partition(DiskStorageEngine engine, Random r) {
        return engine.partition(new TopicPartition(TOPIC, r.nextInt(PARTITIONS)));
    }

    private static void append(DiskStorageEngine engine, Random r) throws Exception {
        partition(engine, r)
                .append(TestBatches.batch(1 + r.nextInt(4), 1_000L + r.nextInt(1000)), Acks.ALL, -1)
                .get();
    }

    /** A read may find its offset deleted (OFFSET_OUT_OF_RANGE); never a closed channel. */
    private static void read(DiskStorageEngine engine, Random r) {
        PartitionLog log = partition(engine, r);
        PartitionState s = log.state();
        if (s.highWatermark() == s.logStartOffset()) {
            return;
        }
        long offset = s.logStartOffset() + (long) (r.nextDouble() * (s.highWatermark() - s.logStartOffset()));
        try {
            FetchResult f = log.read(offset, 1 + r.nextInt(4096), s.highWatermark());
            if (f.sizeInBytes() > 0) {
                RecordBatchHeader h =
                        RecordBatchHeader.peek(f.records(), f.records().position());
                assertThat(h.lastOffset()).isGreaterThanOrEqualTo(offset);
            }
        } catch (StorageException e) {
            requireOutOfRange(e);
        }
    }

    private static FileSlice slice(DiskStorageEngine engine, Random r) {
        PartitionLog log = partition(engine, r);
        PartitionState s = log.state();
        if (s.highWatermark() == s.logStartOffset()) {
            return null;
        }
        long offset = s.logStartOffset() + (long) (r.nextDouble() * (s.highWatermark() - s.logStartOffset()));
        try {
            FetchResult f = log.readForTransfer(offset, 1 + r.nextInt(4096), s.highWatermark());
            return f.file();
        } catch (StorageException e) {
            requireOutOfRange(e);
            return null;
        }
    }

    /** Takes a slice, holds a few (so eviction and deletion run under them), and sends the oldest. */
    private static void send(DiskStorageEngine engine, Random r, ConcurrentLinkedQueue<FileSlice> inFlight)
            throws IOException {
        FileSlice s = slice(engine, r);
        if (s != null) {
            inFlight.add(s);
        }
        if (inFlight.size() > 4 || r.nextInt(3) == 0) {
            FileSlice oldest = inFlight.poll();
            if (oldest != null) {
                transferWhole(oldest);
            }
        }
    }

    private static void deleteRecords(DiskStorageEngine engine, Random r) throws InterruptedException {
        if (r.nextInt(10) == 0) {
            PartitionLog log = partition(engine, r);
            long hwm = log.state().highWatermark();
            if (hwm > 0) {
                log.deleteRecords(Math.max(0, hwm - r.nextInt(20)));
            }
        }
        Thread.sleep(1);
    }

    private static void requireOutOfRange(StorageException e) {
        if (e.kind() != StorageException.Kind.OFFSET_OUT_OF_RANGE) {
            throw e;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(t).isNotInstanceOf(ClosedChannelException.class);
        }
    }

    /** What sendfile does with a region: every byte from the channel, then the region is let go. */
    private static void transferWhole(FileSlice s) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
        s.channel().read(head, s.position());
        assertThat(RecordBatchHeader.peek(head.flip(), 0).sizeInBytes()).isLessThanOrEqualTo(s.length());
        CountingSink sink = new CountingSink();
        long done = 0;
        while (done < s.length()) {
            done += s.channel().transferTo(s.position() + done, s.length() - done, sink);
        }
        assertThat(sink.bytes).isEqualTo(s.length());
        s.release();
    }

    private static final class CountingSink implements WritableByteChannel {
        long bytes;

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            bytes += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }
}
