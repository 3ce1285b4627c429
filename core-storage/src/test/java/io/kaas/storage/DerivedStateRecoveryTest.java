package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Derivable state files that cannot be read are rebuilt from the log when the partition opens, never
 * fatal; the rebuilt state is what a partition that never lost its files holds. And the log start, kept
 * twice (manifest.json, log-start.json), survives one damaged copy; an impossible copy is refused.
 */
class DerivedStateRecoveryTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long P7 = 7, P8 = 8, P9 = 9;
    private static final byte[] GARBAGE = "\u0001\u0002{not json".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private DiskStorageEngine engine;

    private Partition open() {
        engine = new DiskStorageEngine(EngineConfig.defaults(dir).withSegmentBytes(1024));
        if (engine.topic("t").isEmpty()) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
        }
        return engine.openPartition(TP);
    }

    private void closeEngine() {
        engine.close();
        engine = null;
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    private Path partitionDir() {
        return dir.resolve("t").resolve("0");
    }

    private static void ack(Partition p, java.nio.ByteBuffer b) throws Exception {
        p.append(b, Acks.ALL, -1).get();
    }

    /**
     * Idempotent and transactional history spread over several segments (1 KiB each), so that a replay of
     * the active segment alone could not rebuild it: P9's batches, an aborted transaction of P7, a
     * committed one of P8, then padding that rolls, and P7's transaction left open in the active segment.
     */
    private void writeHistory(Partition p) throws Exception {
        ack(p, TestBatches.idempotent(P9, (short) 0, 0, 2));
        ack(p, TestBatches.transactional(P7, (short) 0, 0, 2));
        ack(p, TestBatches.marker(P7, (short) 0, false));
        ack(p, TestBatches.transactional(P8, (short) 3, 0, 1));
        ack(p, TestBatches.marker(P8, (short) 3, true));
        ack(p, TestBatches.idempotent(P9, (short) 0, 2, 1));
        for (int i = 0; i < 4; i++) {
            ack(p, TestBatches.sized(700));
        }
        ack(p, TestBatches.transactional(P7, (short) 0, 2, 1));
    }

    /** What a partition shows of that history: producers, aborted ranges, last stable offset. */
    private record Seen(List<ProducerStatus> producers, List<AbortedTransaction> aborted, long lastStable, long end) {}

    private static Seen seen(Partition p) {
        List<ProducerStatus> producers = p.producers().stream()
                .map(s -> new ProducerStatus(
                        s.producerId(),
                        s.producerEpoch(),
                        s.lastSequence(),
                        s.lastTimestamp() * 0,
                        s.currentTxnStartOffset(),
                        s.coordinatorEpoch()))
                .sorted(java.util.Comparator.comparingLong(ProducerStatus::producerId))
                .toList();
        long end = p.state().highWatermark();
        return new Seen(producers, p.abortedTransactions(0, end), p.state().lastStableOffset(), end);
    }

    /** The history written, closed cleanly and reopened once with every file intact: the reference. */
    private Seen reference() throws Exception {
        writeHistory(open());
        closeEngine();
        Seen intact = seen(open());
        closeEngine();
        assertThat(segmentCount()).as("the history spans closed segments").isGreaterThan(2);
        assertThat(intact.aborted()).hasSize(1);
        return intact;
    }

    private long segmentCount() throws Exception {
        try (Stream<Path> files = Files.list(partitionDir())) {
            return files.filter(f -> SegmentName.isLogFile(f.getFileName().toString()))
                    .count();
        }
    }

    @Test
    void aGarbageProducerStateSnapshotIsRebuiltFromTheWholeLog() throws Exception {
        Seen intact = reference();
        Files.write(partitionDir().resolve(ProducerStateSnapshot.FILE_NAME), GARBAGE);

        Partition p = open();
        assertThat(seen(p)).isEqualTo(intact);
        // Idempotence from a batch in a closed segment: P9's retry is answered as a duplicate, its next batch appended.
        AppendResult retry = p.append(TestBatches.idempotent(P9, (short) 0, 2, 1), Acks.ALL, -1)
                .get();
        assertThat(retry.duplicate()).isTrue();
        assertThat(p.append(TestBatches.idempotent(P9, (short) 0, 3, 1), Acks.ALL, -1)
                        .get()
                        .duplicate())
                .isFalse();
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class))
                .as("written back readable")
                .isPresent();
    }

    @Test
    void aGarbageTxnIndexSnapshotIsRebuiltFromTheWholeLog() throws Exception {
        Seen intact = reference();
        Files.write(partitionDir().resolve(TxnIndexSnapshot.FILE_NAME), GARBAGE);

        Partition p = open();
        assertThat(seen(p)).isEqualTo(intact);
        closeEngine();
        Partition again = open();
        assertThat(seen(again))
                .as("the rebuilt snapshot was written, before the checkpoint")
                .isEqualTo(intact);
    }

    @Test
    void bothSnapshotsAndTheCheckpointGarbageAtOnce() throws Exception {
        Seen intact = reference();
        Files.write(partitionDir().resolve(TxnIndexSnapshot.FILE_NAME), GARBAGE);
        Files.write(partitionDir().resolve(ProducerStateSnapshot.FILE_NAME), GARBAGE);
        Files.write(partitionDir().resolve(RecoveryCheckpoint.FILE_NAME), GARBAGE);

        assertThat(seen(open())).isEqualTo(intact);
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class))
                .isPresent();
    }

    @Test
    void aGarbageRecoveryCheckpointOverAnEmptyActiveSegmentIsRewritten() throws Exception {
        open();
        closeEngine();
        Files.write(partitionDir().resolve(RecoveryCheckpoint.FILE_NAME), GARBAGE);
        open();
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class))
                .isPresent();
    }

    @Test
    void aCheckpointInsideABatchNeverCutsIt() throws Exception {
        Seen intact = reference();
        Path file = partitionDir().resolve(RecoveryCheckpoint.FILE_NAME);
        RecoveryCheckpoint atEnd =
                StateJson.read(file, RecoveryCheckpoint.class).orElseThrow();
        // 10 bytes before the end: inside the last batch, which a scan from there would take for a torn tail.
        StateJson.write(file, new RecoveryCheckpoint(atEnd.segmentBase(), atEnd.bytePos() - 10, atEnd.highWatermark()));

        Partition p = open();
        assertThat(seen(p)).isEqualTo(intact);
        assertThat(p.read(intact.end() - 1, 1 << 20, Long.MAX_VALUE).records().remaining())
                .as("the last batch is kept")
                .isPositive();
        closeEngine();
        assertThat(StateJson.read(file, RecoveryCheckpoint.class)).hasValue(atEnd);
    }

    @Test
    void aGarbageLeaderEpochCheckpointIsRebuiltFromTheSegmentNames() throws Exception {
        Seen intact = reference();
        Path file = partitionDir().resolve(LeaderEpochCheckpoint.FILE_NAME);
        Files.write(file, GARBAGE);

        assertThat(seen(open())).isEqualTo(intact);
        closeEngine();
        assertThat(StateJson.read(file, LeaderEpochCheckpoint.class))
                .hasValueSatisfying(c -> assertThat(c.epochs()).containsExactly(new LeaderEpochCheckpoint.Entry(0, 0)));
    }

    @Test
    void aGarbageManifestAfterDeleteRecordsKeepsTheLogStart() throws Exception {
        Partition p = open();
        writeHistory(p);
        long start = p.deleteRecords(p.state().highWatermark() - 1);
        long end = p.state().highWatermark();
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(LogStart.FILE_NAME), LogStart.class))
                .hasValueSatisfying(c -> assertThat(c.logStartOffset()).isEqualTo(start));
        Files.write(partitionDir().resolve(Manifest.FILE_NAME), GARBAGE);

        Partition reopened = open();
        assertThat(reopened.state().logStartOffset())
                .as("deleted records never come back")
                .isEqualTo(start);
        assertThat(reopened.state().highWatermark()).isEqualTo(end);
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(Manifest.FILE_NAME), Manifest.class))
                .hasValueSatisfying(m -> assertThat(m.logStartOffset()).isEqualTo(start));
    }

    @Test
    void aGarbageLogStartCopyIsRewrittenFromTheManifest() throws Exception {
        Partition p = open();
        writeHistory(p);
        long start = p.deleteRecords(3);
        closeEngine();
        Files.write(partitionDir().resolve(LogStart.FILE_NAME), GARBAGE);

        assertThat(open().state().logStartOffset()).isEqualTo(start);
        closeEngine();
        assertThat(StateJson.read(partitionDir().resolve(LogStart.FILE_NAME), LogStart.class))
                .hasValueSatisfying(c -> assertThat(c.logStartOffset()).isEqualTo(start));
    }

    @Test
    void aNegativeLogStartIsDamageNamingTheManifest() throws Exception {
        writeHistory(open());
        closeEngine();
        StateJson.write(partitionDir().resolve(Manifest.FILE_NAME), new Manifest(0, 5, -1));

        assertRefused(partitionDir().resolve(Manifest.FILE_NAME) + ":0: logStartOffset -1 is negative");
    }

    @Test
    void aLogStartPastItsOwnHighWatermarkIsDamage() throws Exception {
        writeHistory(open());
        closeEngine();
        StateJson.write(partitionDir().resolve(Manifest.FILE_NAME), new Manifest(0, 12, 5000));

        assertRefused(
                partitionDir().resolve(Manifest.FILE_NAME) + ":0: logStartOffset 5000 is past the highWatermark 12");
    }

    @Test
    void aManifestLogStartNoDeletionRecordedIsDamage() throws Exception {
        Partition p = open();
        writeHistory(p);
        p.deleteRecords(3);
        long end = p.state().highWatermark();
        closeEngine();
        StateJson.write(partitionDir().resolve(Manifest.FILE_NAME), new Manifest(0, 5000, 5000));

        assertRefused(partitionDir().resolve(Manifest.FILE_NAME) + ":0: logStartOffset 5000 is past the log start 3");
        assertThat(end).isLessThan(5000);
    }

    private void assertRefused(String expected) {
        assertThatThrownBy(this::open).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED);
            assertThat(e.getMessage()).contains(expected);
        });
    }
}
