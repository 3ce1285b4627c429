package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read_committed Fetch (data up to the last stable offset, then the aborted ranges it overlaps) and
 * DescribeProducers read the published view: they complete while another thread holds the partition lock,
 * and they see every change the moment the append that made it returns.
 */
class LockFreeReadsTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final long P7 = 7, P8 = 8;

    @TempDir
    Path dir;

    DiskStorageEngine engine;
    final ExecutorService holder = Executors.newSingleThreadExecutor(r -> new Thread(r, "lock-holder"));

    Partition open() {
        engine = new DiskStorageEngine(EngineConfig.defaults(dir));
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        return engine.openPartition(TP);
    }

    @AfterEach
    void close() throws Exception {
        holder.shutdownNow();
        assertThat(holder.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        if (engine != null) {
            engine.close();
        }
    }

    static void ack(Partition p, java.nio.ByteBuffer b) throws Exception {
        p.append(b, Acks.ALL, -1).get(10, TimeUnit.SECONDS);
    }

    /** 0-1 txn P7, 2 ABORT P7, 3 txn P8 (open): the last stable offset is 3. */
    static void writeHistory(Partition p) throws Exception {
        ack(p, TestBatches.transactional(P7, (short) 0, 0, 2));
        ack(p, TestBatches.marker(P7, (short) 0, false));
        ack(p, TestBatches.transactional(P8, (short) 1, 0, 1));
    }

    @Test
    void aReadCommittedFetchAndDescribeProducersCompleteWhileTheLockIsHeld() throws Exception {
        Partition p = open();
        writeHistory(p);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holding = CompletableFuture.runAsync(
                () -> p.core().read(g -> {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return null;
                }),
                holder);
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(p.appendWithoutBlocking(TestBatches.batch(1, 1_000L), Acks.LEADER, -1))
                    .as("the lock is held: an append that must not wait gives way")
                    .isNull();

            CompletableFuture<Void> fetch = CompletableFuture.runAsync(() -> {
                long lso = p.state().lastStableOffset();
                assertThat(lso).isEqualTo(3);
                FetchResult r = p.read(0, 1 << 20, lso);
                assertThat(r.records().remaining()).isPositive();
                assertThat(p.abortedTransactions(0, lso)).containsExactly(new AbortedTransaction(P7, 0, 2));
                assertThat(p.producers())
                        .extracting(ProducerStatus::producerId, ProducerStatus::currentTxnStartOffset)
                        .containsExactly(
                                org.assertj.core.groups.Tuple.tuple(P7, -1L),
                                org.assertj.core.groups.Tuple.tuple(P8, 3L));
            });
            assertThat(fetch).succeedsWithin(Duration.ofSeconds(10));
            assertThat(holding).isNotDone();
        } finally {
            release.countDown();
        }
        assertThat(holding).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void theViewCarriesEachChangeAsItsAppendReturns() throws Exception {
        Partition p = open();
        writeHistory(p);
        ack(p, TestBatches.marker(P8, (short) 1, false));
        assertThat(p.state().lastStableOffset()).isEqualTo(5);
        assertThat(p.abortedTransactions(0, 5))
                .containsExactly(new AbortedTransaction(P7, 0, 2), new AbortedTransaction(P8, 3, 4));
        assertThat(p.abortedTransactions(3, 5)).containsExactly(new AbortedTransaction(P8, 3, 4));
        assertThat(p.producers())
                .filteredOn(s -> s.producerId() == P8)
                .singleElement()
                .satisfies(s -> assertThat(s.currentTxnStartOffset()).isEqualTo(-1));

        // DeleteRecords past the first range drops it from the view too.
        p.deleteRecords(3);
        assertThat(p.abortedTransactions(0, 5)).containsExactly(new AbortedTransaction(P8, 3, 4));
    }
}
