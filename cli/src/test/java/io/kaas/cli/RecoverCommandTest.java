package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.testing.LogFixture;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.segment.SegmentName;
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
        CliRun again = CliRun.run(new RecoverCommand(), "--fast", "--json", "--index-interval-bytes", "256", data.toString());
        assertThat(again.exit()).isZero();
        again.out().lines().forEach(l -> {
            JsonNode n = json(l);
            assertThat(n.get("status").asText()).as(l).isEqualTo("clean");
            assertThat(n.get("bytesScanned").asLong()).as(l).isZero();
        });
    }

    @Test
    void tornTailIsTruncatedAndDryRunChangesNoByte() throws Exception {
        long size = Files.size(log1);
        LogFixture.append(log1, new byte[]{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 99, 1, 2, 3});
        LogFixture.writeManifest(p0, 1, 150, 0);
        SortedMap<String, String> before = LogFixture.snapshot(data);

        CliRun dry = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains(p0 + ": would recover (dry run, nothing changed); truncated 15 bytes")
                .contains("high watermark 150 -> 400");
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);

        CliRun real = CliRun.run(new RecoverCommand(), p0.toString());
        assertThat(real.exit()).as(real.toString()).isZero();
        assertThat(real.out()).contains(p0 + ": recovered; truncated 15 bytes").contains("high watermark 150 -> 400");
        assertThat(Files.size(log1)).isEqualTo(size);
        assertThat(StateJson.read(p0.resolve(Manifest.FILE_NAME), Manifest.class).orElseThrow().highWatermark()).isEqualTo(400);
        assertThat(CliRun.run(new VerifyCommand(), data.toString()).exit()).isZero();
    }

    @Test
    void bitRotFollowedByValidDataIsRefusedUntilForced() throws Exception {
        long third = LogFixture.concat(LogFixture.plain(0, 2, 5)).length;
        LogFixture.flipByte(log0, third + 75);
        SortedMap<String, String> before = LogFixture.snapshot(p0);

        CliRun refused = CliRun.run(new RecoverCommand(), data.toString());
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.out()).contains(p0 + ": DAMAGED, refused").contains("damage: " + log0 + ":" + third + ": CRC mismatch");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);

        byte[] damaged = Files.readAllBytes(log0);
        int size = LogFixture.sizeOf(LogFixture.plain(10, 1, 5).get(0));
        CliRun salvaged = CliRun.run(new RecoverCommand(), "--force", data.toString());
        assertThat(salvaged.exit()).as(salvaged.toString()).isZero();
        assertThat(salvaged.out()).contains(p0 + ": recovered").contains("dropped 1 batch(es) (5 records)")
                .contains("high watermark 400 -> 400");
        assertThat(log1).exists();
        assertThat(Files.size(log0)).isEqualTo(damaged.length - size);
        Path saved = quarantined(log0.getFileName() + "." + third + "-" + (third + size));
        assertThat(Files.readAllBytes(saved)).isEqualTo(java.util.Arrays.copyOfRange(damaged, (int) third, (int) third + size));
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
        assertThat(forced.out()).contains(p0 + ": recovered").contains("dropped 78 batch(es) (390 records)")
                .contains("high watermark 400 -> 10");
        assertThat(log1).doesNotExist();
        assertThat(Files.size(log0)).isEqualTo(third);
        assertThat(Files.readAllBytes(quarantined(log0.getFileName() + "." + third + "-" + damaged.length)))
                .isEqualTo(java.util.Arrays.copyOfRange(damaged, (int) third, damaged.length));
        assertThat(Files.readAllBytes(quarantined(log1.getFileName() + ".0-" + later.length))).isEqualTo(later);
        assertThat(CliRun.run(new RecoverCommand(), "--truncate", data.toString()).exit()).isEqualTo(2);
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
        assertThat(CliRun.run(new RebuildIndexCommand(), "--check", "--index-interval-bytes", "256", p0.toString()).exit()).isZero();
    }

    @Test
    void refusesAPartitionABrokerOwnsUnlessForced() throws Exception {
        LogFixture.append(log1, new byte[20]);
        try (FileChannel ch = FileChannel.open(p0.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = ch.lock()) {
            CliRun r = CliRun.run(new RecoverCommand(), data.toString());
            assertThat(r.exit()).isEqualTo(3);
            assertThat(r.err()).contains(p0.resolve(".lock") + ": partition is owned by a running broker");
            assertThat(r.out()).contains(data.resolve("t/1") + ": "); // other partitions still recovered

            assertThat(CliRun.run(new RecoverCommand(), "--dry-run", data.toString()).exit()).as("a dry run needs no lock").isZero();
        }
        assertThat(CliRun.run(new RecoverCommand(), data.toString()).exit()).isZero();
    }

    @Test
    void aDirectoryWhereASegmentBelongsIsUnreadableAndOtherPartitionsStillRecover() throws Exception {
        Path dirAsLog = Files.createDirectory(p0.resolve(SegmentName.of(1, 400).logFileName()));

        CliRun r = CliRun.run(new RecoverCommand(), data.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.err()).contains(dirAsLog + ": not a regular file, cannot be read as a segment").doesNotContain("\tat ");
        assertThat(r.out()).contains(data.resolve("t/1") + ": ");
        assertThat(dirAsLog).isDirectory();
    }

    @Test
    void missingPathAndUsage() {
        CliRun r = CliRun.run(new RecoverCommand(), data.resolve("nope").toString());
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).startsWith(data.resolve("nope") + ": no such file or directory");
        assertThat(CliRun.run(new RecoverCommand()).exit()).isEqualTo(2);
        assertThat(CliRun.run(new RecoverCommand(), "--help").out()).contains("--dry-run").contains("--force");
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
