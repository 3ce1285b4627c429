package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
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

class DeleteRecordsCommandTest {
    @TempDir
    Path data;

    Path p0;

    @BeforeEach
    void dataDir() {
        p0 = LogFixture.partition(data, "t", 0, 3, 20); // segments at 0, 100, 200; log end 300
        LogFixture.partition(data, "t", 1, 1, 4);
    }

    private Manifest manifest(Path dir) {
        return StateJson.read(dir.resolve(Manifest.FILE_NAME), Manifest.class).orElseThrow();
    }

    @Test
    void advancesLogStartAndUnlinksOnlyFullyCoveredClosedSegments() {
        CliRun r = CliRun.run(
                new DeleteRecordsCommand(),
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "150");

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out())
                .isEqualTo(
                        "Executing records delete operation\nRecords delete operation completed:\npartition: t-0\tlow_watermark: 150\n");
        assertThat(manifest(p0).logStartOffset()).isEqualTo(150);
        assertThat(p0.resolve(SegmentName.of(1, 0).logFileName())).doesNotExist();
        assertThat(p0.resolve(SegmentName.of(1, 0).indexFileName())).doesNotExist();
        assertThat(p0.resolve(SegmentName.of(1, 100).logFileName())).exists();
        assertThat(r.err())
                .contains("removed " + p0.resolve(SegmentName.of(1, 0).logFileName()));
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();
    }

    @Test
    void minusOneMeansTheHighWatermarkReadFromTheLogAndNeverRemovesTheActiveSegment() {
        LogFixture.writeManifest(p0, 1, 120, 0); // a lagging manifest: the log end is 300

        CliRun r = CliRun.run(
                new DeleteRecordsCommand(),
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "-1");

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("partition: t-0\tlow_watermark: 300");
        assertThat(p0.resolve(SegmentName.of(1, 100).logFileName())).doesNotExist();
        assertThat(p0.resolve(SegmentName.of(1, 200).logFileName())).exists();
        assertThat(manifest(p0)).isEqualTo(new Manifest(1, 300, 300));
    }

    @Test
    void jsonFileInKafkaFormatAndOutOfRangeOffsets() throws Exception {
        Path json = data.resolve("offsets.json");
        Files.writeString(
                json,
                "{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":100},"
                        + "{\"topic\":\"t\",\"partition\":1,\"offset\":999},{\"topic\":\"nope\",\"partition\":0,\"offset\":1}],\"version\":1}");

        CliRun r = CliRun.run(
                new DeleteRecordsCommand(), "--data-dir", data.toString(), "--offset-json-file", json.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.out())
                .contains("partition: t-0\tlow_watermark: 100\n")
                .contains("partition: t-1\terror: offset 999 is not between 0 and the high watermark 20")
                .contains("partition: nope-0\terror: unknown topic or partition");
        assertThat(manifest(data.resolve("t/1")).logStartOffset()).isZero();
        Files.delete(json);
    }

    @Test
    void badJsonFilesAreUsageErrors() throws Exception {
        Path json = Files.writeString(p0.resolveSibling("bad.json"), "{\"partitions\":[{\"topic\":\"t\"}]}");
        CliRun r = CliRun.run(
                new DeleteRecordsCommand(), "--data-dir", data.toString(), "--offset-json-file", json.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith(json + ": partitions[0] needs");
        Files.writeString(json, "{not json");
        assertThat(CliRun.run(
                                new DeleteRecordsCommand(),
                                "--data-dir",
                                data.toString(),
                                "--offset-json-file",
                                json.toString())
                        .err())
                .startsWith(json + ": not valid JSON");
    }

    @Test
    void dryRunChangesNoByte() {
        SortedMap<String, String> before = LogFixture.snapshot(data);

        CliRun r = CliRun.run(
                new DeleteRecordsCommand(),
                "--dry-run",
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "250");

        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("low_watermark: 250");
        assertThat(r.err())
                .contains("would remove " + p0.resolve(SegmentName.of(1, 100).logFileName()))
                .contains("would write " + p0.resolve("manifest.json.tmp"))
                .contains("would write " + p0.resolve("manifest.json"));
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);

        // the dry run listed every file the real run writes or removes, and nothing else
        CliRun real = CliRun.run(
                new DeleteRecordsCommand(),
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "250");
        assertThat(real.exit()).as(real.toString()).isZero();
        assertThat(real.err()
                        .lines()
                        .map(l -> l.replaceFirst("^(wrote|removed) ", ""))
                        .toList())
                .isEqualTo(r.err()
                        .lines()
                        .map(l -> l.replaceFirst("^would (write|remove) ", ""))
                        .toList());
    }

    @Test
    void refusesAnOwnedPartitionUnlessForced() throws Exception {
        try (FileChannel ch =
                        FileChannel.open(p0.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            CliRun r = CliRun.run(
                    new DeleteRecordsCommand(),
                    "--data-dir",
                    data.toString(),
                    "--topic",
                    "t",
                    "--partition",
                    "0",
                    "--offset",
                    "150");
            assertThat(r.exit()).isEqualTo(3);
            assertThat(r.err().lines().findFirst().orElseThrow())
                    .isEqualTo(p0.resolve(".lock")
                            + ": partition is owned by a running broker (lock held); stop the broker or pass --force");
            assertThat(manifest(p0).logStartOffset()).isZero();

            assertThat(CliRun.run(
                                    new DeleteRecordsCommand(),
                                    "--force",
                                    "--data-dir",
                                    data.toString(),
                                    "--topic",
                                    "t",
                                    "--partition",
                                    "0",
                                    "--offset",
                                    "150")
                            .exit())
                    .isZero();
        }
    }

    @Test
    void aPartitionRecoverRefusesIsRefusedWithItsDamageAndNothingChanges() {
        Path first = p0.resolve(SegmentName.of(1, 0).logFileName());
        long third = LogFixture.concat(LogFixture.plain(0, 2, 5)).length;
        LogFixture.flipByte(first, third + 7); // a base offset, outside the CRC
        SortedMap<String, String> before = LogFixture.snapshot(data);

        CliRun r = CliRun.run(
                new DeleteRecordsCommand(),
                "--data-dir",
                data.toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "150");

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains(first + ":").contains("nothing was deleted");
        assertThat(r.out()).contains("partition: t-0\terror: " + first + ":");
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);
        assertThat(CliRun.run(new RecoverCommand(), "--dry-run", p0.toString()).exit())
                .isEqualTo(1);
    }

    @Test
    void usageErrors() {
        assertThat(CliRun.run(new DeleteRecordsCommand(), "--data-dir", data.toString())
                        .exit())
                .isEqualTo(2);
        assertThat(CliRun.run(new DeleteRecordsCommand(), "--data-dir", data.toString(), "--topic", "t")
                        .exit())
                .isEqualTo(2);
        assertThat(CliRun.run(
                                new DeleteRecordsCommand(),
                                "--data-dir",
                                data.toString(),
                                "--topic",
                                "t",
                                "--partition",
                                "0",
                                "--offset",
                                "1",
                                "--offset-json-file",
                                "x")
                        .exit())
                .isEqualTo(2);
        assertThat(CliRun.run(
                                new DeleteRecordsCommand(),
                                "--data-dir",
                                data.resolve("nope").toString(),
                                "--topic",
                                "t",
                                "--partition",
                                "0",
                                "--offset",
                                "1")
                        .exit())
                .isEqualTo(3);
        assertThat(CliRun.run(new DeleteRecordsCommand(), "--help").out())
                .contains("--offset-json-file")
                .contains("Exit Codes:");
    }
}
