package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.TestBatches;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.PartitionSegments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules recover and verify share for what a forced recovery leaves and for stale state files: a
 * salvage records the offsets it leaves unused up to the next segment, a leader-epoch checkpoint that
 * disagrees with the segment names is not fenced by, a recovery checkpoint must match the batch at its
 * byte, and the manifest's epoch never lags a segment's.
 */
class ForcedRecoveryRulesTest {
    static final int BATCH = DamageVerdictTest.BATCH;

    @TempDir
    Path scratch;

    @TempDir
    Path root;

    /** {@code batches} batches of 2 records in segments of {@code segmentBytes}, closed cleanly. */
    Path write(int batches, long segmentBytes) throws Exception {
        try (DiskStorageEngine e = new DiskStorageEngine(
                EngineConfig.defaults(root).withSegmentBytes(segmentBytes).withIndexIntervalBytes(200))) {
            e.createTopic("t", 1, TopicConfig.EMPTY);
            Partition p = e.openPartition(DamageVerdictTest.TP);
            for (int i = 0; i < batches; i++) {
                p.append(TestBatches.idempotent(5, (short) 0, i * 2, 2), Acks.ALL, -1)
                        .get();
            }
            return p.dir();
        }
    }

    @Test
    void aSalvageToTheEndOfAClosedSegmentRecordsTheGapUpToTheNextSegment() throws Exception {
        Path dir = write(20, 1024);
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(f -> f.toString().endsWith(".log")).sorted().toList();
        }
        assertThat(logs).hasSizeGreaterThanOrEqualTo(2);
        Path first = logs.get(0);
        long size = Files.size(first);
        long batches = size / BATCH;
        DamageVerdictTest.putInt(
                first, size - BATCH + 8, 10); // the last batch's length: nothing after it can be framed
        long nextBase = PartitionSegments.list(dir).get(1).baseOffset();

        RecoveryReport salvaged =
                RecoveryScan.run(dir, DamageVerdictTest.offline(false, RecoveryOptions.DamagePolicy.SALVAGE));

        assertThat(salvaged.refused()).isFalse();
        assertThat(Files.size(first)).isEqualTo(size - BATCH);
        Quarantine.Entry entry = Quarantine.readNote(DamageVerdictTest.onlyQuarantine(dir))
                .entries()
                .get(0);
        assertThat(entry.gapFrom()).isEqualTo((batches - 1) * 2);
        assertThat(entry.gapTo()).as("up to the next segment's base offset").isEqualTo(nextBase);
        assertThat(Quarantine.salvagedGap(dir, (batches - 1) * 2, nextBase)).isTrue();
        RecoveryReport again =
                RecoveryScan.run(dir, DamageVerdictTest.offline(true, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(again.refused()).as(again.damage().toString()).isFalse();
    }

    @Test
    void aDamagedManifestRewrittenByForceIsQuarantinedWholeFirst() throws Exception {
        Path dir = write(3, 1 << 20);
        Path manifest = dir.resolve(Manifest.FILE_NAME);
        io.kaas.storage.format.StateJson.write(
                manifest, new Manifest(0, 6, 100)); // a log start past its high watermark
        byte[] damaged = Files.readAllBytes(manifest);

        assertThat(RecoveryScan.run(dir, DamageVerdictTest.offline(false, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .isTrue();
        RecoveryReport forced =
                RecoveryScan.run(dir, DamageVerdictTest.offline(false, RecoveryOptions.DamagePolicy.SALVAGE));

        assertThat(forced.refused()).isFalse();
        Path q = DamageVerdictTest.onlyQuarantine(dir);
        assertThat(Files.readAllBytes(q.resolve(Manifest.FILE_NAME + ".0-" + damaged.length)))
                .isEqualTo(damaged);
        assertThat(Quarantine.readNote(q).entries())
                .singleElement()
                .satisfies(e -> assertThat(e.file()).isEqualTo(Manifest.FILE_NAME));
        assertThat(Files.readAllBytes(manifest)).isNotEqualTo(damaged);
    }

    @Test
    void anEpochCheckpointIsJudgedAgainstTheSegmentNames() throws Exception {
        segment("00000001-00000000000000000000.log");
        segment("00000002-00000000000000000010.log");
        var segments = PartitionSegments.list(scratch);

        assertThat(DerivedEpochs.disagreement(epochs(1, 0, 2, 10), segments)).isNull();
        assertThat(DerivedEpochs.disagreement(epochs(0, 0, 2, 10), segments)).contains("does not record epoch 1");
        assertThat(DerivedEpochs.disagreement(epochs(1, 0, 2, 0), segments))
                .as("it would fence the log's first segment, which no later epoch's segment precedes")
                .contains("later epoch began at offset 0");
        assertThat(DerivedEpochs.disagreement(epochs(2, 0, 1, 10), segments)).isNotNull();

        segment("00000001-00000000000000000020.log"); // a fenced ex-leader's late segment, after the takeover at 10
        assertThat(DerivedEpochs.disagreement(epochs(1, 0, 2, 10), PartitionSegments.list(scratch)))
                .isNull();
        assertThat(DerivedEpochs.trusted(scratch, epochs(0, 0, 2, 0)).epochs())
                .containsExactly(new LeaderEpochCheckpoint.Entry(1, 0), new LeaderEpochCheckpoint.Entry(2, 10));
    }

    @Test
    void aRecoveryCheckpointMustMatchTheBatchAtItsByte() {
        Map<Long, Long> nextByEnd = Map.of(141L, 84L);
        java.util.function.LongUnaryOperator next = pos -> nextByEnd.getOrDefault(pos, Long.MIN_VALUE);

        assertThat(CheckpointHint.disagreement(new RecoveryCheckpoint(79, 141, 84), 141, next, 84, 84))
                .isNull();
        assertThat(CheckpointHint.disagreement(new RecoveryCheckpoint(79, 141, 0), 141, next, 84, 84))
                .isEqualTo(
                        "highWatermark 0 disagrees with the log: the batch ending at byte 141 is followed by offset 84");
        assertThat(CheckpointHint.disagreement(new RecoveryCheckpoint(79, 100, 84), 141, next, 84, 84))
                .contains("not a batch boundary");
        assertThat(CheckpointHint.disagreement(new RecoveryCheckpoint(79, 200, 84), 141, next, 84, 84))
                .contains("past the valid end 141");
        assertThat(CheckpointHint.disagreement(new RecoveryCheckpoint(79, 141, 90), 141, next, 84, 90))
                .as("the log resumes at a durable log start past its end")
                .isNull();
    }

    @Test
    void aManifestEpochOlderThanASegmentsIsStale() {
        assertThat(DurableLogStart.epochBehindSegments(new Manifest(0, 84, 0), 2))
                .isEqualTo("epoch 0 is older than segment epoch 2");
        assertThat(DurableLogStart.epochBehindSegments(new Manifest(2, 84, 0), 2))
                .isNull();
        assertThat(DurableLogStart.epochBehindSegments(new Manifest(0, 84, 0), -1))
                .as("Apache names carry no epoch")
                .isNull();
    }

    private void segment(String name) throws Exception {
        Files.write(scratch.resolve(name), new byte[] {1});
    }

    private static LeaderEpochCheckpoint epochs(int e1, long s1, int e2, long s2) {
        return new LeaderEpochCheckpoint(
                LeaderEpochCheckpoint.VERSION,
                List.of(new LeaderEpochCheckpoint.Entry(e1, s1), new LeaderEpochCheckpoint.Entry(e2, s2)));
    }
}
