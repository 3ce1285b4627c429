package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactional batches and the coordinator's control batches through the ordinary append path: the
 * last stable offset, the aborted ranges and each producer's open transaction, kept across a clean
 * reopen (snapshot) and rebuilt by recovery from the log alone.
 */
class TransactionalAppendTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final long P7 = 7, P8 = 8;

    @TempDir
    Path dir;

    DiskStorageEngine engine;

    Partition open() {
        engine = new DiskStorageEngine(EngineConfig.defaults(dir));
        if (engine.topic("t").isEmpty()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
        }
        return engine.openPartition(TP);
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    static void ack(Partition p, java.nio.ByteBuffer b) throws Exception {
        p.append(b, Acks.ALL, -1).get();
    }

    static ProducerStatus producer(Partition p, long id) {
        return p.producers().stream()
                .filter(s -> s.producerId() == id)
                .findFirst()
                .orElseThrow();
    }

    /** 0-1 txn P7, 2 plain, 3 ABORT P7, 4 txn P8, 5 COMMIT P8, 6 txn P7 (left open). */
    void writeHistory(Partition p) throws Exception {
        ack(p, TestBatches.transactional(P7, (short) 0, 0, 2));
        ack(p, TestBatches.batch(1, 1_000L));
        assertThat(p.state().lastStableOffset()).isZero();
        assertThat(producer(p, P7).currentTxnStartOffset()).isZero();
        ack(p, TestBatches.marker(P7, (short) 0, false));
        assertThat(p.state().lastStableOffset())
                .isEqualTo(4)
                .isEqualTo(p.state().highWatermark());
        assertThat(producer(p, P7).currentTxnStartOffset()).isEqualTo(-1);
        ack(p, TestBatches.transactional(P8, (short) 3, 0, 1));
        assertThat(p.state().lastStableOffset()).isEqualTo(4);
        ack(p, TestBatches.marker(P8, (short) 3, true));
        assertThat(p.state().lastStableOffset()).isEqualTo(6);
        ack(p, TestBatches.transactional(P7, (short) 0, 2, 1));
    }

    void assertHistory(Partition p) {
        assertThat(p.state().highWatermark()).isEqualTo(7);
        assertThat(p.state().lastStableOffset()).isEqualTo(6);
        assertThat(p.abortedTransactions(0, 7)).containsExactly(new AbortedTransaction(P7, 0, 3));
        assertThat(p.abortedTransactions(4, 7)).isEmpty();
        // lastTimestamp is not in the snapshot: compared where it is known, in the first test.
        assertThat(producer(p, P7))
                .usingRecursiveComparison()
                .ignoringFields("lastTimestamp")
                .isEqualTo(new ProducerStatus(P7, (short) 0, 2, -1, 6, 0));
        assertThat(producer(p, P8))
                .usingRecursiveComparison()
                .ignoringFields("lastTimestamp")
                .isEqualTo(new ProducerStatus(P8, (short) 3, 0, -1, -1, 0));
    }

    @Test
    void controlBatchesCloseTransactionsAndAbortsAreIndexed() throws Exception {
        Partition p = open();
        writeHistory(p);
        assertHistory(p);
        assertThat(producer(p, P7).lastTimestamp())
                .as("largest batch timestamp")
                .isEqualTo(1_001L);
        // A marker takes no sequence: the producer's next batch continues its sequence.
        ack(p, TestBatches.marker(P7, (short) 0, true));
        assertThat(p.state().lastStableOffset()).isEqualTo(8);
        ack(p, TestBatches.transactional(P7, (short) 0, 3, 1));
    }

    @Test
    void aMarkerWithABumpedEpochFencesTheOldEpoch() throws Exception {
        Partition p = open();
        ack(p, TestBatches.transactional(P7, (short) 0, 0, 1));
        ack(p, TestBatches.marker(P7, (short) 1, false)); // a timeout abort: the coordinator bumped the epoch
        assertThat(p.state().lastStableOffset()).isEqualTo(2);
        assertThat(p.append(TestBatches.transactional(P7, (short) 0, 1, 1), Acks.ALL, -1))
                .failsWithin(java.time.Duration.ofSeconds(5))
                .withThrowableThat()
                .havingCause()
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.PRODUCER_FENCED));
    }

    /**
     * A marker from a coordinator that lost the transactional id's slot, arriving after its successor's marker (with a
     * producer epoch kept across transactions, transaction version 1): it would end the producer's next transaction.
     * Refused as Apache refuses it, and still refused after a clean reopen and after a recovery from the log alone.
     */
    @Test
    void aMarkerFromAnOlderCoordinatorEpochIsRefused() throws Exception {
        Partition p = open();
        ack(p, TestBatches.transactional(P7, (short) 0, 0, 1));
        ack(p, TestBatches.marker(P7, (short) 0, true, 5)); // the successor, coordinator epoch 5
        ack(p, TestBatches.transactional(P7, (short) 0, 1, 1)); // the producer's next transaction, same epoch
        assertCoordinatorFenced(p);
        assertThat(p.state().lastStableOffset())
                .as("the next transaction stays open")
                .isEqualTo(2);
        ack(p, TestBatches.marker(P7, (short) 0, true, 5)); // the same coordinator epoch: accepted
        assertThat(p.state().lastStableOffset()).isEqualTo(4);

        engine.close();
        assertCoordinatorFenced(open());
        engine.close();
        Path partitionDir = dir.resolve("t").resolve("0");
        Files.delete(partitionDir.resolve(io.kaas.storage.format.ProducerStateSnapshot.FILE_NAME));
        Files.delete(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME));
        assertCoordinatorFenced(open());
    }

    private static void assertCoordinatorFenced(Partition p) {
        long end = p.state().highWatermark();
        assertThat(p.append(TestBatches.marker(P7, (short) 0, true, 4), Acks.ALL, -1))
                .failsWithin(java.time.Duration.ofSeconds(5))
                .withThrowableThat()
                .havingCause()
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.kind()).isEqualTo(StorageException.Kind.COORDINATOR_FENCED);
                    assertThat(e.getMessage()).contains("4 (zombie), 5 (current)");
                });
        assertThat(p.state().highWatermark()).as("nothing written").isEqualTo(end);
    }

    @Test
    void abortedRangesBelowTheLogStartAreForgotten() throws Exception {
        Partition p = open();
        writeHistory(p);
        p.deleteRecords(3);
        assertThat(p.abortedTransactions(0, 7))
                .as("the abort ends at 3, still readable")
                .hasSize(1);
        p.deleteRecords(4);
        assertThat(p.abortedTransactions(0, 7)).isEmpty();
        assertThat(p.state().lastStableOffset())
                .as("the open transaction stays open")
                .isEqualTo(6);
        engine.close();
        assertThat(open().abortedTransactions(0, 7)).isEmpty();
    }

    @Test
    void aCleanReopenKeepsTheIndexFromItsSnapshot() throws Exception {
        writeHistory(open());
        engine.close();
        Partition p = open();
        assertHistory(p);
    }

    @Test
    void recoveryRebuildsTheIndexFromTheLogAlone() throws Exception {
        writeHistory(open());
        engine.close();
        Path partitionDir = dir.resolve("t").resolve("0");
        Files.delete(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME));
        Files.delete(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME));
        Partition p = open();
        assertHistory(p);
    }
}
