package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SortedMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoverCommandTest {
    @TempDir
    Path data;

    Path p0;
    Path log0;
    Path log1;

    @BeforeEach
    void dataDir() {
        p0 = LogFixture.partition(data, "t", 0, 2, 40);
        LogFixture.partition(data, "t", 1, 1, 5);
        log0 = p0.resolve(SegmentName.of(1, 0).logFileName());
        log1 = p0.resolve(SegmentName.of(1, 200).logFileName());
    }

    @Test
    void cleanDataDirReportsEveryPartitionAndExitsZero() {
        CliRun first = CliRun.run(new RecoverCommand(), "--index-interval-bytes", "256", data.toString());
        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(first.out()).contains(p0 + ": ").contains(data.resolve("t/1") + ": ");

        // the first run wrote the checkpoint at EOF: now the broker-shaped scan reads zero log bytes
        CliRun again =
                CliRun.run(new RecoverCommand(), "--fast", "--json", "--index-interval-bytes", "256", data.toString());
        assertThat(again.exit()).isZero();
        again.out()
                .lines()
                .filter(l -> !json(l).path("type").asText().equals("summary"))
                .forEach(l -> {
                    JsonNode n = json(l);
                    assertThat(n.get("status").asText()).as(l).isEqualTo("clean");
                    assertThat(n.get("bytesScanned").asLong()).as(l).isZero();
                });
    }

    @Test
    void tornTailIsTruncatedAndDryRunChangesNoByte() throws Exception {
        long size = Files.size(log1);
        LogFixture.append(log1, new byte[] {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 99, 1, 2, 3});
        LogFixture.writeManifest(p0, 1, 150, 0);
        SortedMap<String, String> before = LogFixture.snapshot(data);

        CliRun dry = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(dry.out())
                .contains(p0 + ": would recover (dry run, nothing changed); truncated 15 bytes")
                .contains("high watermark 150 -> 400");
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);

        CliRun real = CliRun.run(new RecoverCommand(), p0.toString());
        assertThat(real.exit()).as(real.toString()).isZero();
        assertThat(real.out()).contains(p0 + ": recovered; truncated 15 bytes").contains("high watermark 150 -> 400");
        assertThat(Files.size(log1)).isEqualTo(size);
        assertThat(StateJson.read(p0.resolve(Manifest.FILE_NAME), Manifest.class)
                        .orElseThrow()
                        .highWatermark())
                .isEqualTo(400);
        assertThat(CliRun.run(new VerifyCommand(), data.toString()).exit()).isZero();
    }

    @Test
    void bitRotFollowedByValidDataIsRefusedUntilForced() throws Exception {
        long third = LogFixture.concat(LogFixture.plain(0, 2, 5)).length;
        LogFixture.flipByte(log0, third + 75);
        SortedMap<String, String> before = LogFixture.snapshot(p0);

        CliRun refused = CliRun.run(new RecoverCommand(), data.toString());
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.out())
                .contains(p0 + ": DAMAGED, refused")
                .contains("damage: " + log0 + ":" + third + ": CRC mismatch");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);

        byte[] damaged = Files.readAllBytes(log0);
        int size = LogFixture.sizeOf(LogFixture.plain(10, 1, 5).get(0));
        CliRun salvaged = CliRun.run(new RecoverCommand(), "--force", data.toString());
        assertThat(salvaged.exit()).as(salvaged.toString()).isZero();
        assertThat(salvaged.out())
                .contains(p0 + ": recovered")
                .contains("dropped 1 batch(es) (5 records)")
                .contains("high watermark 400 -> 400");
        assertThat(log1).exists();
        assertThat(Files.size(log0)).isEqualTo(damaged.length - size);
        Path saved = quarantined(log0.getFileName() + "." + third + "-" + (third + size));
        assertThat(Files.readAllBytes(saved))
                .isEqualTo(java.util.Arrays.copyOfRange(damaged, (int) third, (int) third + size));
        CliRun verify = CliRun.run(new VerifyCommand(), data.toString());
        assertThat(verify.exit()).as(verify.toString()).isZero();
    }

    @Test
    void forceTruncateCutsAtTheDamageAndQuarantinesWhatItCut() throws Exception {
        long third = LogFixture.concat(LogFixture.plain(0, 2, 5)).length;
        LogFixture.flipByte(log0, third + 75);
        byte[] damaged = Files.readAllBytes(log0);
        byte[] later = Files.readAllBytes(log1);
        CliRun forced = CliRun.run(new RecoverCommand(), "--force", "--truncate", data.toString());
        assertThat(forced.exit()).as(forced.toString()).isZero();
        assertThat(forced.out())
                .contains(p0 + ": recovered")
                .contains("dropped 78 batch(es) (390 records)")
                .contains("high watermark 400 -> 10");
        assertThat(log1).doesNotExist();
        assertThat(Files.size(log0)).isEqualTo(third);
        assertThat(Files.readAllBytes(quarantined(log0.getFileName() + "." + third + "-" + damaged.length)))
                .isEqualTo(java.util.Arrays.copyOfRange(damaged, (int) third, damaged.length));
        assertThat(Files.readAllBytes(quarantined(log1.getFileName() + ".0-" + later.length)))
                .isEqualTo(later);
        assertThat(CliRun.run(new RecoverCommand(), "--truncate", data.toString())
                        .exit())
                .isEqualTo(2);
    }

    @Test
    void aBadLengthInTheActiveSegmentBelowTheManifestsHighWatermarkIsRefusedNotCut() throws Exception {
        long at = LogFixture.concat(LogFixture.plain(200, 20, 5)).length;
        try (FileChannel ch = FileChannel.open(log1, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(4).putInt(0, 10), at + 8);
        }
        SortedMap<String, String> before = LogFixture.snapshot(p0);
        CliRun refused = CliRun.run(new RecoverCommand(), data.toString());
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).contains(log1 + ":" + at + ": batch length 10");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);

        CliRun dry = CliRun.run(new RecoverCommand(), "--force", "--dry-run", data.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains(".quarantine").contains("would be written");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);

        CliRun salvaged = CliRun.run(new RecoverCommand(), "--force", data.toString());
        assertThat(salvaged.exit()).as(salvaged.toString()).isZero();
        assertThat(salvaged.out()).contains("high watermark 400 -> 400");
        CliRun verify = CliRun.run(new VerifyCommand(), data.toString());
        assertThat(verify.exit()).as(verify.toString()).isZero();
    }

    private Path quarantined(String name) throws java.io.IOException {
        try (java.util.stream.Stream<Path> runs = Files.list(p0.resolve(".quarantine"))) {
            return runs.findFirst().orElseThrow().resolve(name);
        }
    }

    @Test
    void missingIndexIsRebuiltAndGarbageManifestRewritten() throws Exception {
        Files.delete(p0.resolve(SegmentName.of(1, 0).indexFileName()));
        Files.writeString(p0.resolve(Manifest.FILE_NAME), "garbage");

        CliRun r = CliRun.run(new RecoverCommand(), "--index-interval-bytes", "256", p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("rebuilt 1 index(es)");
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();
        assertThat(CliRun.run(new RebuildIndexCommand(), "--check", "--index-interval-bytes", "256", p0.toString())
                        .exit())
                .isZero();
    }

    @Test
    void garbageSnapshotsAreRebuiltFromTheLogAndVerifyThenAgrees() throws Exception {
        Files.writeString(p0.resolve(ProducerStateSnapshot.FILE_NAME), "\u0000garbage");
        Files.writeString(p0.resolve(TxnIndexSnapshot.FILE_NAME), "{\"version\":1,\"open\":[");
        CliRun before = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(before.exit()).as(before.toString()).isEqualTo(1);
        assertThat(before.out())
                .contains(p0.resolve(ProducerStateSnapshot.FILE_NAME) + ": unreadable (")
                .contains("would be rebuilt from the log");

        SortedMap<String, String> untouched = LogFixture.snapshot(p0);
        CliRun dry = CliRun.run(new RecoverCommand(), "--dry-run", "--index-interval-bytes", "256", p0.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains(p0.resolve(TxnIndexSnapshot.FILE_NAME) + ": rebuilt from the log");
        assertThat(LogFixture.snapshot(p0)).as("a dry run changes no byte").isEqualTo(untouched);

        CliRun r = CliRun.run(new RecoverCommand(), "--index-interval-bytes", "256", p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains(p0.resolve(ProducerStateSnapshot.FILE_NAME)
                        + ": rebuilt from the log (2 segment(s), 80 batch(es)")
                .contains(p0.resolve(TxnIndexSnapshot.FILE_NAME) + ": rebuilt from the log");
        assertThat(StateJson.read(p0.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class))
                .isPresent();
        CliRun after = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(after.exit()).as(after.toString()).isZero();
    }

    @Test
    void snapshotEntriesPastTheLogEndAreForgottenAndTheSnapshotRewritten() {
        // A clean close left the checkpoint at EOF (no tail to scan), but the snapshot names a batch the log lacks.
        assertThat(CliRun.run(new RecoverCommand(), p0.toString()).exit()).isZero();
        StateJson.write(
                p0.resolve(ProducerStateSnapshot.FILE_NAME),
                new ProducerStateSnapshot(
                        ProducerStateSnapshot.VERSION,
                        java.util.List.of(new ProducerStateSnapshot.Entry(
                                77, (short) 0, java.util.List.of(new ProducerStateSnapshot.Batch(0, 4, 1000)), null))));
        CliRun before = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(before.exit()).as(before.toString()).isEqualTo(1);
        assertThat(before.out())
                .contains(p0.resolve(ProducerStateSnapshot.FILE_NAME) + ": 1 batch(es) at or past the log end 400");

        CliRun r = CliRun.run(new RecoverCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains(p0.resolve(ProducerStateSnapshot.FILE_NAME) + ": 1 batch(es) at or past the log end 400");
        CliRun after = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(after.exit()).as(after.toString()).isZero();
    }

    @Test
    void aGarbageManifestAfterDeleteRecordsNeverBringsDeletedRecordsBack() throws Exception {
        CliRun deleted = CliRun.run(
                new DeleteRecordsCommand(),
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "250");
        assertThat(deleted.exit()).as(deleted.toString()).isZero();
        assertThat(log0).doesNotExist();
        Files.writeString(p0.resolve(Manifest.FILE_NAME), "{\"epoch\":1,\"highWater"); // half-written

        CliRun r = CliRun.run(new RecoverCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(StateJson.read(p0.resolve(Manifest.FILE_NAME), Manifest.class))
                .hasValueSatisfying(m -> {
                    assertThat(m.logStartOffset())
                            .as("the log start never moves back")
                            .isEqualTo(250);
                    assertThat(m.highWatermark()).isEqualTo(400);
                });
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();
    }

    @Test
    void aPurgeThatOutranUnsyncedDataIsAPowerCutOutcomeForBothTools() {
        // DeleteRecords to 500 acknowledged (manifest durable) while offsets 400..499 were acks=1, lost in the cut.
        LogFixture.writeManifest(p0, 1, 500, 500);
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();

        CliRun r = CliRun.run(new RecoverCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("log end 400 is below the durable log start 500; the log resumes at 500");
        assertThat(StateJson.read(p0.resolve(Manifest.FILE_NAME), Manifest.class))
                .hasValue(new Manifest(1, 500, 500));
        CliRun after = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(after.exit()).as(after.toString()).isZero();
    }

    @Test
    void impossibleManifestsAreDamageForRecoverAndVerifyAlike() {
        for (long[] hwAndStart : new long[][] {{400, 5000}, {400, -1}, {-3, 0}}) {
            LogFixture.writeManifest(p0, 1, hwAndStart[0], hwAndStart[1]);
            SortedMap<String, String> before = LogFixture.snapshot(p0);

            CliRun r = CliRun.run(new RecoverCommand(), p0.toString());
            assertThat(r.exit()).as(r.toString()).isEqualTo(1);
            assertThat(r.out())
                    .contains(p0 + ": DAMAGED, refused")
                    .contains("damage: " + p0.resolve(Manifest.FILE_NAME) + ":0: ");
            assertThat(LogFixture.snapshot(p0)).as("nothing changed").isEqualTo(before);

            String finding = r.out()
                    .lines()
                    .filter(l -> l.contains("damage: "))
                    .findFirst()
                    .orElseThrow()
                    .replaceFirst("^.*damage: ", "");
            CliRun v = CliRun.run(new VerifyCommand(), p0.toString());
            assertThat(v.exit()).as(v.toString()).isEqualTo(1);
            assertThat(v.out()).as("the same finding").contains(finding);
        }
        CliRun forced = CliRun.run(new RecoverCommand(), "--force", p0.toString());
        assertThat(forced.exit()).as(forced.toString()).isZero();
        assertThat(forced.out()).contains("ignored (--force) and rewritten");
        assertThat(StateJson.read(p0.resolve(Manifest.FILE_NAME), Manifest.class))
                .hasValue(new Manifest(1, 400, 0));
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();
    }

    @Test
    void refusesAPartitionABrokerOwnsUnlessForced() throws Exception {
        LogFixture.append(log1, new byte[20]);
        try (FileChannel ch =
                        FileChannel.open(p0.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            CliRun r = CliRun.run(new RecoverCommand(), data.toString());
            assertThat(r.exit()).isEqualTo(3);
            assertThat(r.err()).contains(p0.resolve(".lock") + ": partition is owned by a running broker");
            assertThat(r.out()).contains(data.resolve("t/1") + ": "); // other partitions still recovered

            assertThat(CliRun.run(new RecoverCommand(), "--dry-run", data.toString())
                            .exit())
                    .as("a dry run needs no lock")
                    .isZero();
        }
        assertThat(CliRun.run(new RecoverCommand(), data.toString()).exit()).isZero();
    }

    @Test
    void aDirectoryWhereASegmentBelongsIsUnreadableAndOtherPartitionsStillRecover() throws Exception {
        Path dirAsLog = Files.createDirectory(p0.resolve(SegmentName.of(1, 400).logFileName()));

        CliRun r = CliRun.run(new RecoverCommand(), data.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.err())
                .contains(dirAsLog + ": not a regular file, cannot be read as a segment")
                .doesNotContain("\tat ");
        assertThat(r.out()).contains(data.resolve("t/1") + ": ");
        assertThat(dirAsLog).isDirectory();
    }

    @Test
    void missingPathAndUsage() {
        CliRun r = CliRun.run(new RecoverCommand(), data.resolve("nope").toString());
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).startsWith(data.resolve("nope") + ": no such file or directory");
        assertThat(CliRun.run(new RecoverCommand()).exit()).isEqualTo(2);
        assertThat(CliRun.run(new RecoverCommand(), "--help").out())
                .contains("--dry-run")
                .contains("--force");
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
