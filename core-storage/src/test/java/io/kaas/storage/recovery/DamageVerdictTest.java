package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.Partition;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Torn tail or damage, by evidence: a bad field in bytes known durable (or with intact data after it)
 * is refused, salvaged with {@code SALVAGE} (only the bad range removed, quarantined byte for byte) or
 * cut with {@code TRUNCATE}; a bad tail past the last durable point with nothing after it is still cut.
 */
class DamageVerdictTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final String LOG0 = "00000000-00000000000000000000.log";
    static final int BATCH = TestBatches.idempotent(5, (short) 0, 0, 2).limit();

    @TempDir
    Path root;

    final List<DiskStorageEngine> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(DiskStorageEngine::close);
    }

    /** {@code batches} batches of 2 records in one segment (or segments of {@code segmentBytes}), closed cleanly. */
    Path write(String name, int batches, long segmentBytes) throws Exception {
        Path data = root.resolve(name);
        try (DiskStorageEngine e = new DiskStorageEngine(
                EngineConfig.defaults(data).withSegmentBytes(segmentBytes).withIndexIntervalBytes(200))) {
            e.createTopic("t", 1, TopicConfig.EMPTY);
            Partition p = e.openPartition(TP);
            for (int i = 0; i < batches; i++) {
                p.append(TestBatches.idempotent(5, (short) 0, i * 2, 2), Acks.ALL, -1)
                        .get();
            }
            return p.dir();
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

    static void putInt(Path f, long at, int value) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).putInt(0, value), at);
        }
    }

    static void putLong(Path f, long at, long value) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).putLong(0, value), at);
        }
    }

    static Path onlyQuarantine(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(Quarantine.DIR_NAME))) {
            List<Path> runs = s.toList();
            assertThat(runs).hasSize(1);
            return runs.get(0);
        }
    }

    static byte[] without(byte[] bytes, int start, int end) {
        byte[] out = new byte[bytes.length - (end - start)];
        System.arraycopy(bytes, 0, out, 0, start);
        System.arraycopy(bytes, end, out, start, bytes.length - end);
        return out;
    }

    @Test
    void aBadLengthMidActiveSegmentAfterACleanCloseIsRefusedSalvagedOrCut() throws Exception {
        for (int length : new int[] {0x7fff0000, 10, BATCH - 12 - 40}) {
            Path dir = write("len" + length, 50, 1 << 30);
            Path log = dir.resolve(LOG0);
            long at = 20L * BATCH;
            putInt(log, at + 8, length);
            byte[] damaged = Files.readAllBytes(log);

            RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
            assertThat(refused.refused()).as("length %d", length).isTrue();
            assertThat(refused.damage().get(0))
                    .startsWith(log + ":" + at + ": ")
                    .contains(RecoveryCheckpoint.FILE_NAME)
                    .contains("--force would remove bytes " + at + "-" + (at + BATCH));
            assertThat(Files.readAllBytes(log)).isEqualTo(damaged);

            RecoveryReport dry = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.SALVAGE));
            assertThat(dry.refused()).isFalse();
            assertThat(dry.actions())
                    .anySatisfy(a -> assertThat(a)
                            .contains(Quarantine.DIR_NAME)
                            .contains(LOG0 + "." + at + "-" + (at + BATCH))
                            .contains("would be written"));
            assertThat(Files.readAllBytes(log)).isEqualTo(damaged);
            assertThat(dir.resolve(Quarantine.DIR_NAME)).doesNotExist();

            RecoveryReport salvaged = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
            assertThat(salvaged.refused()).isFalse();
            assertThat(salvaged.highWatermarkAfter())
                    .as("offsets after the gap continue")
                    .isEqualTo(100);
            assertThat(Files.readAllBytes(log)).isEqualTo(without(damaged, (int) at, (int) at + BATCH));
            Path q = onlyQuarantine(dir);
            assertThat(Files.readAllBytes(q.resolve(LOG0 + "." + at + "-" + (at + BATCH))))
                    .isEqualTo(Arrays.copyOfRange(damaged, (int) at, (int) at + BATCH));
            assertThat(Quarantine.readNote(q).entries())
                    .singleElement()
                    .satisfies(e -> assertThat(e.file()).isEqualTo(LOG0))
                    .satisfies(e -> assertThat(e.start()).isEqualTo(at));
            RecoveryReport again = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE));
            assertThat(again.refused()).isFalse();
            assertThat(again.damage()).isEmpty();
            assertThat(again.changed()).as(again.actions().toString()).isFalse();
            Partition p = reopen(dir);
            assertThat(p.state().highWatermark()).isEqualTo(100);
            assertThat(p.state().logStartOffset()).isZero();
        }
    }

    @Test
    void truncateCutsAtTheDamageAndQuarantinesTheRest() throws Exception {
        Path dir = write("cut", 50, 1 << 30);
        Path log = dir.resolve(LOG0);
        long at = 20L * BATCH;
        putInt(log, at + 8, 10);
        byte[] damaged = Files.readAllBytes(log);
        RecoveryReport cut = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.TRUNCATE));
        assertThat(cut.refused()).isFalse();
        assertThat(cut.highWatermarkAfter()).isEqualTo(40);
        assertThat(Files.size(log)).isEqualTo(at);
        assertThat(Files.readAllBytes(onlyQuarantine(dir).resolve(LOG0 + "." + at + "-" + damaged.length)))
                .isEqualTo(Arrays.copyOfRange(damaged, (int) at, damaged.length));
        assertThat(reopen(dir).state().highWatermark()).isEqualTo(40);
    }

    @Test
    void aTornTailPastTheLastDurablePointIsStillCutWithoutAsking() throws Exception {
        Path dir = write("torn", 20, 1 << 30);
        Partition p = reopen(dir);
        for (int i = 0; i < 5; i++) {
            p.append(TestBatches.batch(2, 1), Acks.ALL, -1).get();
        }
        Path crashed = root.resolve("torncrash").resolve("t").resolve("0");
        Files.createDirectories(crashed);
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : s.toList()) {
                if (!f.getFileName().toString().equals(".lock")) {
                    Files.copy(f, crashed.resolve(f.getFileName()));
                }
            }
        }
        Files.writeString(
                crashed.getParent().resolve(".topic-id.json"),
                Files.readString(dir.getParent().resolve(".topic-id.json")));
        // The checkpoint still names the clean close's end: a tear past it, garbage length, nothing valid after.
        RecoveryCheckpoint cp = io.kaas.storage.format.StateJson.read(
                        crashed.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class)
                .orElseThrow();
        Path log = crashed.resolve(LOG0);
        long size = Files.size(log);
        long lastBatch = size - TestBatches.batch(2, 1).limit();
        assertThat(lastBatch).isGreaterThan(cp.bytePos());
        io.kaas.storage.format.StateJson.write(
                crashed.resolve(RecoveryCheckpoint.FILE_NAME),
                new RecoveryCheckpoint(cp.segmentBase(), 20L * BATCH, 40));
        putInt(log, lastBatch + 8, 0x7fff0000);
        RecoveryReport r = RecoveryScan.run(crashed, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(r.refused()).isFalse();
        assertThat(r.damage()).isEmpty();
        assertThat(r.bytesTruncated()).isEqualTo(size - lastBatch);
        assertThat(Files.size(log)).isEqualTo(lastBatch);
        assertThat(crashed.resolve(Quarantine.DIR_NAME))
                .as("a torn tail is not quarantined")
                .doesNotExist();
    }

    @Test
    void afterACrashTheOpenRefusesABadLengthWithIntactDataAfterIt() throws Exception {
        Path dir = write("crash", 30, 1 << 30);
        Files.delete(dir.resolve(RecoveryCheckpoint.FILE_NAME));
        io.kaas.storage.format.StateJson.write(
                dir.resolve(io.kaas.storage.format.Manifest.FILE_NAME), new io.kaas.storage.format.Manifest(0, 0, 0));
        long at = 10L * BATCH;
        putInt(dir.resolve(LOG0), at + 8, 0x7fff0000);
        assertThatThrownBy(() -> reopen(dir)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED);
            assertThat(e.getMessage())
                    .startsWith(dir.resolve(LOG0) + ":" + at + ": ")
                    .contains("CRC-valid batch continuing the log");
        });
    }

    @Test
    void aDamagedBaseOffsetIsNamedAtTheDamagedBatch() throws Exception {
        Path dir = write("base", 10, 1 << 30);
        Path log = dir.resolve(LOG0);
        long at = 4L * BATCH;
        putLong(log, at, 1000);
        RecoveryReport r = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(r.refused()).isTrue();
        assertThat(r.damage().get(0)).startsWith(log + ":" + at + ": ").contains("base offset 1000");
        RecoveryReport salvaged = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
        assertThat(salvaged.highWatermarkAfter()).isEqualTo(20);
        assertThat(Files.size(log)).isEqualTo(9L * BATCH);
    }

    @Test
    void anOverlappingSegmentCopyIsRefusedUnderEveryPolicy() throws Exception {
        Path dir = write("overlap", 40, 1024);
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(f -> f.toString().endsWith(".log"))
                    .sorted(Comparator.naturalOrder())
                    .toList();
        }
        assertThat(logs.size()).isGreaterThan(3);
        SegmentName second =
                SegmentName.parse(logs.get(2).getFileName().toString()).orElseThrow();
        Path copy = dir.resolve(
                SegmentName.of(second.epoch(), second.baseOffset() - 1).logFileName());
        Files.copy(logs.get(2), copy);
        for (RecoveryOptions.DamagePolicy policy : RecoveryOptions.DamagePolicy.values()) {
            RecoveryReport r = RecoveryScan.run(dir, offline(false, policy));
            assertThat(r.refused()).as(policy.name()).isTrue();
            assertThat(r.damage())
                    .anySatisfy(d -> assertThat(d).startsWith(copy + ":0: ").contains("overlap"));
        }
        assertThat(copy).exists();
        assertThat(logs.get(2)).exists();
    }

    @Test
    void aBaseOffsetRaisedInTheLastBatchDisagreesWithTheCheckpoint() throws Exception {
        Path dir = write("lastbase", 10, 1 << 30);
        Path log = dir.resolve(LOG0);
        long at = 9L * BATCH;
        putLong(log, at, 500);
        RecoveryReport r = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(r.refused()).as("the log end would otherwise jump to 502").isTrue();
        assertThat(r.damage().get(0)).startsWith(log + ":" + at + ": ").contains(RecoveryCheckpoint.FILE_NAME);
    }

    @Test
    void aLeaderEpochNewerThanTheEpochCheckpointAllowsIsDamageAtThatBatch() throws Exception {
        Path dir = write("epoch", 10, 1 << 30);
        io.kaas.storage.format.StateJson.write(
                dir.resolve(io.kaas.storage.format.LeaderEpochCheckpoint.FILE_NAME),
                io.kaas.storage.format.LeaderEpochCheckpoint.EMPTY.with(0, 0));
        assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                        .refused())
                .isFalse();
        Path log = dir.resolve(LOG0);
        long at = 3L * BATCH;
        putInt(log, at + 12, 77);
        RecoveryReport r = RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE));
        assertThat(r.refused()).isTrue();
        assertThat(r.damage().get(0)).startsWith(log + ":" + at + ": ").contains("partition leader epoch 77");
    }

    /**
     * Past the checkpoint, no batch continues the log, but a CRC-valid batch lies across or after the stop with
     * offsets past the log's: its base offset (outside the CRC) no longer fits the segment, or it starts inside
     * the last valid batch (a write duplicated over the end). No torn write leaves one: damage, never cut
     * without --force; a salvage quarantines it with the bad bytes.
     */
    @Test
    void aCrcValidBatchPastTheLogAfterTheStopIsDamageEvenWhenNothingContinuesTheLog() throws Exception {
        for (boolean inside : new boolean[] {false, true}) {
            Path dir = write("past" + inside, 10, 1 << 30);
            Path log = dir.resolve(LOG0);
            byte[] clean = Files.readAllBytes(log);
            int last = 9 * BATCH;
            // the last batch's bytes from its length field on, after 8 bytes standing for its base offset: at the
            // end of the file with a base offset past the segment's, or where its own last 8 bytes are that base
            byte[] tail = Arrays.copyOfRange(clean, last + 8, clean.length);
            ByteBuffer grown = ByteBuffer.allocate(clean.length + (inside ? 0 : 8) + tail.length);
            grown.put(clean);
            if (!inside) {
                grown.putLong(1L << 60);
            }
            grown.put(tail);
            Files.write(log, grown.array());
            long batchAt = inside ? clean.length - 8 : clean.length;
            if (inside) {
                assertThat(ByteBuffer.wrap(clean).getLong((int) batchAt))
                        .as("the batch's base offset, read from the last valid batch's bytes, is past the log's")
                        .isGreaterThan(20);
            }
            byte[] damaged = Files.readAllBytes(log);

            RecoveryReport refused = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.REFUSE));
            assertThat(refused.refused()).as("inside %s", inside).isTrue();
            assertThat(refused.damage().get(0))
                    .startsWith(log + ":" + clean.length + ": ")
                    .contains("CRC-valid batch at byte " + batchAt)
                    .contains(inside ? "inside the batch before it" : "past the segment's");
            assertThat(Files.readAllBytes(log)).isEqualTo(damaged);
            assertThatThrownBy(() -> reopen(dir))
                    .isInstanceOfSatisfying(
                            StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED));

            RecoveryReport salvaged = RecoveryScan.run(dir, offline(false, RecoveryOptions.DamagePolicy.SALVAGE));
            assertThat(salvaged.refused()).isFalse();
            assertThat(Files.readAllBytes(log)).isEqualTo(clean);
            assertThat(Files.readAllBytes(
                            onlyQuarantine(dir).resolve(LOG0 + "." + clean.length + "-" + damaged.length)))
                    .isEqualTo(Arrays.copyOfRange(damaged, clean.length, damaged.length));
            assertThat(RecoveryScan.run(dir, offline(true, RecoveryOptions.DamagePolicy.REFUSE))
                            .changed())
                    .isFalse();
        }
    }
}
