package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifyCommandTest {
    @TempDir
    Path data;

    Path p0;
    Path firstLog;
    Path secondLog;

    @BeforeEach
    void healthyDataDir() {
        p0 = LogFixture.partition(data, "orders", 0, 2, 40);
        LogFixture.partition(data, "orders", 1, 1, 3);
        LogFixture.partition(data, "audit", 0, 1, 10);
        // topics as the engine creates them, with their config: a topic without one may be compacted (verify allows
        // gaps)
        StateJson.write(
                data.resolve("orders").resolve(TopicConfig.FILE_NAME),
                TopicConfig.EMPTY.withKafkaConfig("cleanup.policy", "delete"));
        StateJson.write(
                data.resolve("audit").resolve(TopicConfig.FILE_NAME),
                TopicConfig.EMPTY.withKafkaConfig("cleanup.policy", "delete"));
        firstLog = p0.resolve(SegmentName.of(1, 0).logFileName());
        secondLog = p0.resolve(SegmentName.of(1, 200).logFileName());
    }

    @Test
    void healthyDataDirTopicPartitionAndSegmentAreClean() {
        for (Path path : List.of(
                data,
                data.resolve("orders"),
                p0,
                firstLog,
                p0.resolve(SegmentName.of(1, 0).indexFileName()))) {
            CliRun r = CliRun.run(new VerifyCommand(), path.toString());
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.out()).isEmpty();
        }
        assertThat(CliRun.run(new VerifyCommand(), data.toString()).err())
                .contains("verified 3 partition(s), 4 segment(s), 93 batch(es)")
                .contains(": 0 problem(s)");
    }

    @Test
    void flippedByteIsNamedByFileAndPosition() throws Exception {
        long third = position(0, 2);
        LogFixture.flipByte(firstLog, third + 80);

        CliRun r = CliRun.run(new VerifyCommand(), data.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).startsWith(firstLog + ":" + third + ": CRC mismatch");
        assertThat(r.out().lines()).hasSize(1); // the walk goes on after it and finds nothing else wrong
    }

    @Test
    void aDamagedBaseOffsetOutsideTheCrcIsNamedWhereRecoverNamesIt() {
        long third = position(0, 2);
        LogFixture.flipByte(firstLog, third + 7); // the low byte of the base offset: outside the CRC

        CliRun r = CliRun.run(new VerifyCommand(), data.toString());
        CliRun recover = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());

        assertThat(recover.exit()).as(recover.toString()).isEqualTo(1);
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        // verify's verdict is the recovery analysis's own: the same file, the same byte, the same words
        String first = r.out().lines().findFirst().orElseThrow();
        assertThat(first).startsWith(firstLog + ":");
        assertThat(recover.out()).contains(first);
        assertThat(r.out().lines().filter(l -> l.startsWith(firstLog + ":")))
                .as("no second line about the damaged batch's neighbours")
                .hasSize(1);

        CliRun oneFile = CliRun.run(new VerifyCommand(), firstLog.toString());
        assertThat(oneFile.exit()).as(oneFile.toString()).isEqualTo(1);
        assertThat(oneFile.out().lines().findFirst().orElseThrow())
                .as("the segment alone, the same verdict")
                .isEqualTo(first);
        CliRun otherFile = CliRun.run(new VerifyCommand(), secondLog.toString());
        assertThat(otherFile.exit())
                .as("the intact segment alone: " + otherFile)
                .isZero();
    }

    @Test
    void aBadMagicInsideAWholeFrameIsOneProblemAndTheWalkGoesOn() {
        long third = position(0, 2);
        LogFixture.flipByte(firstLog, third + RecordBatchHeader.MAGIC_OFFSET);

        CliRun r = CliRun.run(new VerifyCommand(), data.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.out().lines())
                .singleElement()
                .asString()
                .startsWith(firstLog + ":" + third + ": magic -3, expected 2");
    }

    @Test
    void aDamagedFirstBatchIsOneProblemNotANameMismatchToo() {
        LogFixture.flipByte(firstLog, 70);

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out().lines()).singleElement().asString().startsWith(firstLog + ":0: CRC mismatch");
    }

    @Test
    void tornAndZeroFilledTailsAreProblems() {
        long end = position(0, 10);
        Path audit = data.resolve("audit/0").resolve(SegmentName.of(1, 0).logFileName());
        LogFixture.append(audit, new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0, 0});
        LogFixture.append(secondLog, new byte[512]);

        CliRun r = CliRun.run(new VerifyCommand(), data.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out())
                .contains(audit + ":" + end + ": 10 invalid bytes at the end: ")
                .contains(
                        secondLog + ":" + position(200, 40) + ": 512 invalid bytes at the end (zero-filled torn tail)");
    }

    @Test
    void missingAndGarbageIndexes() throws Exception {
        Files.delete(p0.resolve(SegmentName.of(1, 0).indexFileName()));
        Path idx = p0.resolve(SegmentName.of(1, 200).indexFileName());
        Files.write(idx, new byte[] {0, 0, 0, 2, 0, 0, 0, 5, 1, 2, 3});

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out())
                .contains(p0.resolve(SegmentName.of(1, 0).indexFileName()) + ": missing index")
                .contains(idx + ":8: 3 trailing bytes")
                .contains(idx
                        + ":0: entry 0 (offset 202) points at log position 5, which is not the start of a valid batch");
    }

    @Test
    void indexEntryWithAnOffsetOutsideItsBatch() throws Exception {
        Path idx = p0.resolve(SegmentName.of(1, 0).indexFileName());
        byte[] bytes = Files.readAllBytes(idx);
        ByteBuffer.wrap(bytes).putInt(8, ByteBuffer.wrap(bytes).getInt(8) + 5); // entry 1: next batch's offset

        Files.write(idx, bytes);
        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains(idx + ":8: entry 1 says offset ").contains("but the batch there holds offsets");
    }

    @Test
    void staleManifestAndWrongCheckpoint() {
        LogFixture.writeManifest(p0, 1, 500, 0);
        StateJson.write(p0.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(200, position(200, 1), 204));

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out())
                .contains(p0.resolve(Manifest.FILE_NAME) + ": highWatermark 500 is past the log end 400")
                .contains(p0.resolve(RecoveryCheckpoint.FILE_NAME)
                        + ": highWatermark 204 disagrees with the log: the batch ending at byte " + position(200, 1)
                        + " is followed by offset 205");
    }

    @Test
    void aNegativeLogStartIsAProblemAtByteZero() {
        LogFixture.writeManifest(p0, 1, 400, -1);

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).contains(p0.resolve(Manifest.FILE_NAME) + ":0: logStartOffset -1 is negative");
    }

    @Test
    void aLogStartPastTheEndOfItsOwnManifestIsAProblem() {
        LogFixture.writeManifest(p0, 1, 400, 5000);

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.out())
                .contains(p0.resolve(Manifest.FILE_NAME) + ":0: logStartOffset 5000 is past the highWatermark 400");
    }

    @Test
    void everyUnreadableDerivableFileIsNamed() throws Exception {
        List<String> files = List.of(
                ProducerStateSnapshot.FILE_NAME,
                TxnIndexSnapshot.FILE_NAME,
                RecoveryCheckpoint.FILE_NAME,
                LeaderEpochCheckpoint.FILE_NAME);
        for (String f : files) {
            Files.writeString(p0.resolve(f), "garbage");
        }

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        for (String f : files) {
            assertThat(r.out()
                            .lines()
                            .filter(l -> l.startsWith(p0.resolve(f) + ": unreadable (")
                                    && l.endsWith("would be rebuilt from the log")))
                    .as(f)
                    .hasSize(1);
        }
    }

    @Test
    void anUnreadableOrInvalidTopicConfigIsAProblemNamingTheFile() throws Exception {
        Path config = data.resolve("orders").resolve(TopicConfig.FILE_NAME);
        Files.writeString(config, "{\"cleanupPolicy\":\"sometimes\"}");
        CliRun invalid = CliRun.run(new VerifyCommand(), data.toString());
        assertThat(invalid.exit()).as(invalid.toString()).isEqualTo(1);
        // damage to the topic, as recover judges it: each of its two partitions is refused for it, naming the file
        assertThat(invalid.out()
                        .lines()
                        .filter(l -> l.startsWith(config + ":0: cleanup.policy must be delete, compact or both")))
                .as("once per partition of the topic")
                .hasSize(2);
        assertThat(CliRun.run(new RecoverCommand(), "--dry-run", data.toString())
                        .exit())
                .isEqualTo(1);

        Files.writeString(config, "{\"retentionMs\":");
        CliRun unreadable =
                CliRun.run(new VerifyCommand(), data.resolve("orders").toString());
        assertThat(unreadable.exit()).isEqualTo(1);
        assertThat(unreadable.out()).contains(config + ":0: not a valid topic config (");
    }

    @Test
    void correctCheckpointIsClean() {
        StateJson.write(p0.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(200, position(200, 3), 215));

        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();
    }

    @Test
    void checkpointNamingACleanedAwaySegmentBelowTheActiveOneIsStaleNotDamage() {
        // After a roll the checkpoint names the old segment until its next refresh; the cleaner may merge
        // that segment into one named after an earlier base meanwhile (a kill -9 in the crash harness did).
        StateJson.write(p0.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(150, 4096, 190));
        assertThat(CliRun.run(new VerifyCommand(), p0.toString()).exit()).isZero();

        StateJson.write(p0.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(450, 0, 450));
        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains(p0.resolve(RecoveryCheckpoint.FILE_NAME) + ": segmentBase 450 names no segment");
    }

    @Test
    void emptyAndZeroLengthActiveSegmentIsClean() throws Exception {
        Files.write(p0.resolve(SegmentName.of(1, 400).logFileName()), new byte[0]);
        Files.write(p0.resolve(SegmentName.of(1, 400).indexFileName()), new byte[0]);

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
    }

    @Test
    void gapAcrossSegmentsAndNameMismatch() throws Exception {
        Path moved = p0.resolve(SegmentName.of(1, 190).logFileName());
        Files.move(secondLog, moved);
        Files.move(
                p0.resolve(SegmentName.of(1, 200).indexFileName()),
                p0.resolve(SegmentName.of(1, 190).indexFileName()));

        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains(moved + ":0: first batch starts at offset 200, but the file name says 190");
    }

    @Test
    void unreadablePathsExitThree() throws Exception {
        Files.writeString(data.resolve("notes.txt"), "hi");
        assertThat(CliRun.run(new VerifyCommand(), data.resolve("notes.txt").toString()))
                .satisfies(r -> assertThat(r.exit()).isEqualTo(3))
                .satisfies(r -> assertThat(r.err()).contains(data.resolve("notes.txt") + ": not a segment file"));
        CliRun missing = CliRun.run(new VerifyCommand(), data.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(3);
        assertThat(missing.err()).contains(data.resolve("nope") + ": no such file or directory");

        // a directory where a segment file is expected: the log cannot be read
        Path dirAsLog = Files.createDirectory(p0.resolve(SegmentName.of(1, 400).logFileName()));
        CliRun r = CliRun.run(new VerifyCommand(), p0.toString());
        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.err()).contains(dirAsLog + ": cannot read");
    }

    @Test
    void apacheLogDirWithAPreallocatedActiveIndexIsClean() throws Exception {
        Path apache = data.resolve("apache/orders-0");
        var batches = LogFixture.plain(0, 40, 5);
        LogFixture.writeSegment(apache, new SegmentName(-1, 0, true), batches, 256);
        Path index = apache.resolve(new SegmentName(-1, 0, true).indexFileName());
        LogFixture.append(index, new byte[8 * 100]); // Apache preallocates the active index with zeros

        CliRun r = CliRun.run(new VerifyCommand(), data.resolve("apache").toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.err()).contains("verified 1 partition(s), 1 segment(s), 40 batch(es)");
    }

    @Test
    void jsonReportListsProblemsWithPositions() throws Exception {
        LogFixture.flipByte(firstLog, 70);

        CliRun r = CliRun.run(new VerifyCommand(), "--json", data.toString());

        assertThat(r.exit()).isEqualTo(1);
        List<String> lines = r.out().lines().toList();
        JsonNode problem = new ObjectMapper().readTree(lines.get(0));
        assertThat(problem.get("type").asText()).isEqualTo("problem");
        assertThat(problem.get("file").asText()).isEqualTo(firstLog.toString());
        assertThat(problem.get("position").asLong()).isZero();
        JsonNode summary = new ObjectMapper().readTree(lines.get(lines.size() - 1));
        assertThat(summary.get("type").asText()).isEqualTo("summary");
        assertThat(summary.get("ok").asBoolean()).isFalse();
        assertThat(summary.get("exitCode").asInt()).isEqualTo(1);
        assertThat(summary.get("problems").asInt()).isEqualTo(lines.size() - 1);
        assertThat(summary.get("partitions").asInt()).isEqualTo(3);
    }

    /** Byte position of batch {@code i} in a segment of 5-record batches starting at {@code base} (as LogFixture.partition lays them). */
    private static long position(long base, int i) {
        return LogFixture.concat(LogFixture.plain(base, i, 5)).length;
    }
}
