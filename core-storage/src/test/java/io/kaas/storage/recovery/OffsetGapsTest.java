package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets missing from a log whose topic is not compacted are lost durable data: a deleted middle segment
 * (closed segments were fsynced when they rolled) or a log ending below the manifest's fsynced high watermark
 * is refused, and accepted under --force with the gap recorded (the log resumes at the high watermark, so
 * offsets are never handed out twice). Segments removed by DeleteRecords and a compacted topic's gaps are not damage.
 */
class OffsetGapsTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final int BATCH = TestBatches.idempotent(5, (short) 0, 0, 2).limit();

    @TempDir
    Path root;

    final List<DiskStorageEngine> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(DiskStorageEngine::close);
        opened.clear();
    }

    /** 40 batches of 2 records (offsets 0..79) in segments of 1024 bytes, closed cleanly. */
    Path write(String name, TopicConfig config) {
        Path data = root.resolve(name);
        try (DiskStorageEngine e = new DiskStorageEngine(
                EngineConfig.defaults(data).withSegmentBytes(1024).withIndexIntervalBytes(200))) {
            e.createTopic("t", 1, config);
            Partition p = e.openPartition(TP);
            for (int i = 0; i < 40; i++) {
                p.append(TestBatches.idempotent(5, (short) 0, i * 2, 2), Acks.ALL, -1)
                        .get();
            }
            return p.dir();
        } catch (Exception ex) {
            throw new AssertionError(ex);
        }
    }

    Partition reopen(Path dir) {
        DiskStorageEngine e = new DiskStorageEngine(
                EngineConfig.defaults(dir.getParent().getParent()).withIndexIntervalBytes(200));
        opened.add(e);
        return e.openPartition(TP);
    }

    static RecoveryOptions offline(boolean dryRun, RecoveryOptions.DamagePolicy policy) {
        return new RecoveryOptions(dryRun, policy, new IndexPolicy(200), false, 0, true);
    }

    static List<Path> logs(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.getFileName().toString().endsWith(SegmentName.LOG_SUFFIX))
                    .sorted()
                    .toList();
        }
    }

    static List<Quarantine.Entry> notes(Path dir) throws Exception {
        List<Quarantine.Entry> all = new ArrayList<>();
        try (Stream<Path> runs = Files.list(dir.resolve(Quarantine.DIR_NAME))) {
            for (Path run : runs.toList()) {
                all.addAll(Quarantine.readNote(run).entries());
            }
        }
        return all;
    }

    @Test
    void aDeletedMiddleSegmentIsRefusedEverywhereAndAcceptedByForceWithTheGapRecorded() throws Exception {
        Path dir = write("middle", TopicConfig.EMPTY);
        List<Path> logs = logs(dir);
        assertThat(logs).hasSizeGreaterThanOrEqualTo(3);
        Files.delete(logs.get(1));
        Files.deleteIfExists(dir.resolve(logs.get(1).getFileName().toString().replace(".log", ".index")));
        long from = SegmentName.parse(logs.get(1).getFileName().toString())
                .orElseThrow()
                .baseOffset();
        long to = SegmentName.parse(logs.get(2).getFileName().toString())
                .orElseThrow()
                .baseOffset();

        RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.damage())
                .anySatisfy(d -> assertThat(d)
                        .startsWith(logs.get(2) + ":0: ")
                        .contains("offsets " + from + ".." + (to - 1) + " are missing"));
        assertThatThrownBy(() -> reopen(dir))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(logs.get(2) + ":0: ");
        closeAll();

        RecoveryReport forced = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
        assertThat(forced.refused()).isFalse();
        assertThat(notes(dir)).anySatisfy(e -> {
            assertThat(e.gapFrom()).isEqualTo(from);
            assertThat(e.gapTo()).isEqualTo(to);
            assertThat(e.start()).isEqualTo(e.end()); // no byte left the log
        });
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .as("the recorded gap is a repair, not damage")
                .isFalse();
        assertThat(reopen(dir).state().highWatermark()).isEqualTo(80);
    }

    @Test
    void aLogEndingBelowTheFsyncedHighWatermarkIsRefusedAndForceResumesAtIt() throws Exception {
        Path dir = write("tail", TopicConfig.EMPTY);
        List<Path> logs = logs(dir);
        Path lastLog = logs.get(logs.size() - 1);
        long lastBase = SegmentName.parse(lastLog.getFileName().toString())
                .orElseThrow()
                .baseOffset();
        Files.delete(lastLog);

        RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.damage())
                .anySatisfy(d -> assertThat(d)
                        .startsWith(dir.resolve(Manifest.FILE_NAME) + ":0: ")
                        .contains("highWatermark 80")
                        .contains("ends at offset " + lastBase));
        assertThat(StateJson.read(dir.resolve(Manifest.FILE_NAME), Manifest.class)
                        .orElseThrow()
                        .highWatermark())
                .isEqualTo(80);
        assertThatThrownBy(() -> reopen(dir))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(Manifest.FILE_NAME + ":0: ");
        closeAll();

        RecoveryReport forced = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
        assertThat(forced.refused()).isFalse();
        assertThat(forced.manifestAfter().highWatermark())
                .as("offsets are never handed out twice")
                .isEqualTo(80);
        assertThat(notes(dir)).anySatisfy(e -> {
            assertThat(e.gapFrom()).isEqualTo(lastBase);
            assertThat(e.gapTo()).isEqualTo(80);
        });
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .isFalse();
        Partition p = reopen(dir);
        assertThat(p.state().highWatermark()).isEqualTo(80);
        assertThat(p.append(TestBatches.idempotent(6, (short) 0, 0, 2), Acks.ALL, -1)
                        .get()
                        .baseOffset())
                .isEqualTo(80);
    }

    @Test
    void segmentsDeleteRecordsRemovedAreNoGap() throws Exception {
        Path dir = write("purged", TopicConfig.EMPTY);
        reopen(dir).deleteRecords(25);
        closeAll();
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .isFalse();
        assertThat(reopen(dir).state().logStartOffset()).isEqualTo(25);
    }

    @Test
    void aCompactedTopicMayHaveGapsBetweenSegments() throws Exception {
        Path dir = write("compacted", new TopicConfig(null, null, null, null, "compact", null, null, null));
        List<Path> logs = logs(dir);
        Files.delete(logs.get(1));
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .isFalse();
    }

    @Test
    void aJumpedBaseOffsetInTheLastBatchOfAClosedSegmentIsDamageNamedAtThatBatch() throws Exception {
        Path dir = write("jumped", TopicConfig.EMPTY);
        Path first = logs(dir).get(0);
        long size = Files.size(first);
        long lastBatch = size - BATCH;
        try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).putLong(0, 16_000L), lastBatch);
        }
        RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.damage().get(0))
                .startsWith(first + ":" + lastBatch + ": ")
                .contains("base offset 16000");

        RecoveryReport forced = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
        assertThat(forced.refused()).isFalse();
        assertThat(Files.size(first)).isEqualTo(lastBatch);
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .as("the salvaged batch's offsets, up to the next segment, are a recorded gap")
                .isFalse();
    }
}
