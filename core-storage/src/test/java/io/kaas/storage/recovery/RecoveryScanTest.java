package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexFileFormat;
import io.kaas.storage.segment.IndexPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash-shaped states: each test writes a real partition with the engine, damages a copy the way a
 * crash (or bit rot) would, and reopens it.
 */
class RecoveryScanTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final String LOG0 = "00000000-00000000000000000000.log";
    static final String INDEX0 = "00000000-00000000000000000000.index";

    @TempDir
    Path root;

    /** Writes {@code batches} batches of 2 records, closes cleanly (or not), returns the partition dir. */
    Path write(int batches, long segmentBytes, boolean cleanClose) throws Exception {
        Path data = root.resolve("data");
        EngineConfig cfg =
                EngineConfig.defaults(data).withSegmentBytes(segmentBytes).withIndexIntervalBytes(200);
        DiskStorageEngine e = new DiskStorageEngine(cfg);
        e.createTopic("t", 1, TopicConfig.EMPTY);
        Partition p = e.openPartition(TP);
        for (int i = 0; i < batches; i++) {
            p.append(TestBatches.idempotent(5, (short) 0, i * 2, 2), Acks.ALL, -1)
                    .get();
        }
        Path dir = p.dir();
        if (cleanClose) {
            e.close();
            return dir;
        }
        // kill -9: the page cache survives, nothing of close runs. Copy the files as they are now.
        Path crashed = root.resolve("crashed").resolve("t").resolve("0");
        copy(dir, crashed);
        e.close();
        Files.writeString(
                root.resolve("crashed").resolve("t").resolve(".topic-id.json"),
                Files.readString(dir.getParent().resolve(".topic-id.json")));
        return crashed;
    }

    static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path f : s.toList()) {
                if (!f.getFileName().toString().equals(".lock")) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
    }

    Partition reopen(Path partitionDir) {
        EngineConfig cfg =
                EngineConfig.defaults(partitionDir.getParent().getParent()).withIndexIntervalBytes(200);
        // An engine holds its whole data directory: the one that opened it before lets go first.
        opened.removeIf(e -> {
            if (e.dataDir().equals(cfg.dataDir())) {
                e.close();
                return true;
            }
            return false;
        });
        DiskStorageEngine e = new DiskStorageEngine(cfg);
        opened.add(e);
        return e.openPartition(TP);
    }

    final List<DiskStorageEngine> opened = new java.util.ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closeAll() {
        opened.forEach(DiskStorageEngine::close);
    }

    static RecoveryOptions offline(boolean dryRun, RecoveryOptions.DamagePolicy policy) {
        return new RecoveryOptions(dryRun, policy, new IndexPolicy(200), true, 0, true);
    }

    @Test
    void aCleanCloseLeavesNothingToScan() throws Exception {
        Path dir = write(50, 1 << 30, true);
        assertThat(StateJson.read(dir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class)
                        .orElseThrow()
                        .bytePos())
                .isEqualTo(Files.size(dir.resolve(LOG0)));
        Partition p = reopen(dir);
        assertThat(p.openReport().bytesScanned()).isZero();
        assertThat(p.openReport().actions()).isEmpty();
        assertThat(p.state().highWatermark()).isEqualTo(100);
    }

    @Test
    void afterACrashOnlyTheGapPastTheCheckpointIsScanned() throws Exception {
        Path dir = write(20, 1 << 30, true);
        long checkpointed = Files.size(dir.resolve(LOG0));
        Partition p = reopen(dir);
        for (int i = 0; i < 10; i++) {
            p.append(TestBatches.batch(2, 1), Acks.ALL, -1).get();
        }
        Path crashed = root.resolve("crash2").resolve("t").resolve("0");
        copy(dir, crashed);
        long size = Files.size(crashed.resolve(LOG0));
        Partition q = reopen(crashed);
        assertThat(q.openReport().bytesScanned()).isEqualTo(size - checkpointed);
        assertThat(q.state().highWatermark()).isEqualTo(60);
    }

    @Test
    void aTornTailIsCutToTheLastWholeBatch() throws Exception {
        Path dir = write(10, 1 << 30, false);
        long size = Files.size(dir.resolve(LOG0));
        int batch = TestBatches.idempotent(5, (short) 0, 0, 2).limit();
        truncate(dir.resolve(LOG0), size - batch / 2);
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark()).isEqualTo(18);
        assertThat(p.openReport().bytesTruncated()).isEqualTo(batch - batch / 2);
        assertThat(Files.size(dir.resolve(LOG0))).isEqualTo(size - batch);
        // The producer state forgot the lost batch: its retry is written, not answered as a duplicate.
        var r = p.append(TestBatches.idempotent(5, (short) 0, 18, 2), Acks.ALL, -1)
                .get();
        assertThat(r.duplicate()).isFalse();
        assertThat(r.baseOffset()).isEqualTo(18);
    }

    @Test
    void aZeroFilledTailIsATornTail() throws Exception {
        Path dir = write(10, 1 << 30, false);
        long size = Files.size(dir.resolve(LOG0));
        try (FileChannel ch = FileChannel.open(dir.resolve(LOG0), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4096), size);
        }
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark()).isEqualTo(20);
        assertThat(p.openReport().actions()).anyMatch(a -> a.contains("zero-filled"));
        assertThat(Files.size(dir.resolve(LOG0))).isEqualTo(size);
    }

    @Test
    void aMissingOrGarbageIndexIsRebuiltIdentically() throws Exception {
        Path dir = write(30, 1 << 30, true);
        byte[] good = Files.readAllBytes(dir.resolve(INDEX0));
        assertThat(good.length).isGreaterThan(0);
        Files.delete(dir.resolve(INDEX0));
        Partition p = reopen(dir);
        assertThat(p.openReport().indexesRebuilt()).isEqualTo(1);
        opened.forEach(DiskStorageEngine::close);
        opened.clear();
        assertThat(Files.readAllBytes(dir.resolve(INDEX0))).isEqualTo(good);

        Files.write(dir.resolve(INDEX0), new byte[] {0, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2});
        Partition q = reopen(dir);
        assertThat(q.openReport().indexesRebuilt()).isEqualTo(1);
        assertThat(q.read(29, 1, Long.MAX_VALUE).records().getLong(0)).isEqualTo(28);
    }

    @Test
    void aStaleManifestIsReconciledFromTheLog() throws Exception {
        Path dir = write(10, 1 << 30, true);
        StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(0, 3, 0));
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark()).isEqualTo(20);
        assertThat(StateJson.read(dir.resolve(Manifest.FILE_NAME), Manifest.class))
                .contains(new Manifest(0, 20, 0));
    }

    @Test
    void aStaleOrMissingCheckpointFallsBackToAFullScan() throws Exception {
        Path dir = write(10, 1 << 30, true);
        long size = Files.size(dir.resolve(LOG0));
        StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(999, 12, 5));
        Partition p = reopen(dir);
        assertThat(p.openReport().bytesScanned()).isGreaterThanOrEqualTo(size);
        assertThat(p.state().highWatermark()).isEqualTo(20);
        opened.forEach(DiskStorageEngine::close);
        opened.clear();
        Files.delete(dir.resolve(RecoveryCheckpoint.FILE_NAME));
        Partition q = reopen(dir);
        assertThat(q.openReport().bytesScanned()).isGreaterThanOrEqualTo(size);
        assertThat(q.state().highWatermark()).isEqualTo(20);
        // A checkpoint pointing past the end of the file (file shrank) is not trusted either.
        opened.forEach(DiskStorageEngine::close);
        opened.clear();
        StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(0, size + 100, 25));
        assertThat(reopen(dir).state().highWatermark()).isEqualTo(20);
    }

    @Test
    void aZeroLengthActiveSegmentAfterARollOpensAtItsBaseOffset() throws Exception {
        Path dir = write(10, 1 << 30, true);
        Files.createFile(dir.resolve("00000000-00000000000000000020.log"));
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark()).isEqualTo(20);
        assertThat(p.append(TestBatches.batch(1, 1), Acks.ALL, -1).get().baseOffset())
                .isEqualTo(20);
        assertThat(p.read(5, 1, Long.MAX_VALUE).records().getLong(0)).isEqualTo(4);
    }

    @Test
    void ofTwoSegmentsWithOneBaseOffsetTheHigherEpochWins() throws Exception {
        Path dir = write(10, 1 << 30, true);
        Files.copy(dir.resolve(LOG0), dir.resolve("00000003-00000000000000000000.log"));
        truncate(dir.resolve(LOG0), 0);
        Partition p = reopen(dir);
        assertThat(dir.resolve(LOG0)).doesNotExist();
        assertThat(p.state().highWatermark()).isEqualTo(20);
        assertThat(p.openReport().segmentsRemoved()).isEqualTo(1);
    }

    @Test
    void aFlippedByteFollowedByValidDataIsDamageThatOpenRefusesAndForceTruncates() throws Exception {
        Path dir = write(10, 1 << 30, false);
        int batch = TestBatches.idempotent(5, (short) 0, 0, 2).limit();
        long at = 4L * batch + 70;
        flip(dir.resolve(LOG0), at);
        byte[] before = Files.readAllBytes(dir.resolve(LOG0));
        assertThatThrownBy(() -> reopen(dir)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED);
            assertThat(e.getMessage()).contains(LOG0 + ":" + (4L * batch)).contains("kaas recover --force");
        });
        assertThat(Files.readAllBytes(dir.resolve(LOG0))).isEqualTo(before);

        RecoveryReport dry = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.TRUNCATE));
        assertThat(dry.recordsDropped()).isEqualTo(12);
        assertThat(Files.readAllBytes(dir.resolve(LOG0))).isEqualTo(before);

        RecoveryReport forced = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.TRUNCATE));
        assertThat(forced.batchesDropped()).isEqualTo(6);
        assertThat(forced.highWatermarkAfter()).isEqualTo(8);
        assertThat(reopen(dir).state().highWatermark()).isEqualTo(8);
    }

    @Test
    void anEngineStartingOnADamagedPartitionIsReadyAndNamesItUntilTheTopicGoes() throws Exception {
        Path dir = write(10, 1 << 30, false); // after a crash: the active segment is scanned, so the damage is found
        int batch = TestBatches.idempotent(5, (short) 0, 0, 2).limit();
        flip(dir.resolve(LOG0), 4L * batch + 70);
        try (DiskStorageEngine e =
                new DiskStorageEngine(EngineConfig.defaults(dir.getParent().getParent()))) {
            e.whenReady().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(e.loadProgress()).isEqualTo(new StorageEngine.LoadProgress(1, 0, 1));
            assertThat(e.refusedPartitions()).containsOnlyKeys(TP);
            assertThat(e.refusedPartitions().get(TP))
                    .contains(LOG0 + ":" + (4L * batch))
                    .contains("kaas recover --force");
            e.deleteTopic("t");
            assertThat(e.refusedPartitions())
                    .as("a deleted topic's refusal no longer counts")
                    .isEmpty();
        }
    }

    @Test
    void damageInAClosedSegmentRemovesLaterSegmentsOnlyWithForce() throws Exception {
        Path dir = write(40, 1024, true);
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(f -> f.toString().endsWith(".log"))
                    .sorted(Comparator.naturalOrder())
                    .toList();
        }
        assertThat(logs.size()).isGreaterThan(3);
        flip(logs.get(1), 80);
        RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.damage().get(0)).startsWith(logs.get(1) + ":0:");
        assertThat(Files.exists(logs.get(logs.size() - 1))).isTrue();
        RecoveryReport forced = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.TRUNCATE));
        assertThat(forced.segmentsRemoved()).isEqualTo(logs.size() - 2);
        assertThat(Files.exists(logs.get(logs.size() - 1))).isFalse();
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark())
                .isEqualTo(Long.parseLong(logs.get(1).getFileName().toString().substring(9, 29)));
    }

    @Test
    void aDryRunChangesNoByte() throws Exception {
        Path dir = write(10, 1 << 30, false);
        truncate(dir.resolve(LOG0), Files.size(dir.resolve(LOG0)) - 5);
        Files.delete(dir.resolve(INDEX0));
        StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(0, 2, 0));
        byte[] log = Files.readAllBytes(dir.resolve(LOG0));
        byte[] manifest = Files.readAllBytes(dir.resolve(Manifest.FILE_NAME));
        RecoveryReport r = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(r.changed()).isTrue();
        assertThat(r.highWatermarkAfter()).isEqualTo(18);
        assertThat(Files.readAllBytes(dir.resolve(LOG0))).isEqualTo(log);
        assertThat(Files.readAllBytes(dir.resolve(Manifest.FILE_NAME))).isEqualTo(manifest);
        assertThat(dir.resolve(INDEX0)).doesNotExist();
    }

    @Test
    void theIndexFollowsApachesRule() throws Exception {
        Path dir = write(30, 1 << 30, true);
        var entries = IndexFileFormat.readAll(dir.resolve(INDEX0), 0);
        int batch = TestBatches.idempotent(5, (short) 0, 0, 2).limit();
        // An entry once more than 200 bytes were appended since the last; it holds the batch's last offset.
        int every = 200 / batch + 1;
        assertThat(entries[0].position()).isEqualTo(every * batch);
        assertThat(entries[0].offset()).isEqualTo(every * 2L + 1);
    }

    static void truncate(Path f, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    static void flip(Path f, long at) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
            ch.write(b, at);
        }
    }
}
