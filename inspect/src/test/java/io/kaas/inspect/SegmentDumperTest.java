package io.kaas.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentDumperTest {
    private static final DumpOptions DEEP =
            new DumpOptions(true, false, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);
    private static final DumpOptions DATA =
            new DumpOptions(true, true, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);

    @TempDir
    Path dir;

    @Test
    void kaasNamedSegmentPrintsOneLinePerBatchAndExitsZero() {
        List<ByteBuffer> batches = LogFixture.mixed(0);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 4096);

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, log);

        assertThat(run.exit()).isZero();
        assertThat(run.lines().get(0)).isEqualTo("Dumping " + log);
        assertThat(run.lines().get(1)).isEqualTo("Log starting offset: 0");
        assertThat(run.batchLines()).hasSize(batches.size());
        assertThat(run.batchLines().get(1)).contains("compresscodec: gzip");
        assertThat(run.batchLines().get(4)).contains("compresscodec: zstd");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void deepIterationDecodesCompressedRecordsAndMarkers() {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), LogFixture.mixed(0), 4096);

        DumpRun run = DumpRun.of(DEEP, log);

        List<String> records =
                run.lines().stream().filter(l -> l.startsWith("| offset:")).toList();
        assertThat(records).hasSize((int) LogFixture.nextOffset(LogFixture.mixed(0)));
        assertThat(records.get(4)).startsWith("| offset: 4 CreateTime: ").contains("headerKeys: [h]");
        assertThat(run.out())
                .contains("endTxnMarker: COMMIT coordinatorEpoch: 7")
                .contains("endTxnMarker: ABORT coordinatorEpoch: 7");
        assertThat(run.err()).doesNotContain("Non-consecutive");
    }

    @Test
    void deepIterationOfASegmentNotStartingAtZeroReportsNoGap() {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 500), LogFixture.plain(500, 3, 4), 4096);

        DumpRun run = DumpRun.of(DEEP, log);

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).contains("| offset: 500 ").contains("| offset: 511 ");
    }

    @Test
    void printDataLogShowsKeysAndValuesAsUtf8OrHex() {
        Path log = LogFixture.writeSegment(
                dir,
                SegmentName.of(1, 0),
                List.of(LogFixture.batch(0, Compression.lz4().build(), 2)),
                4096);

        assertThat(DumpRun.of(DATA, log).out()).contains("key: k0 payload: v0").contains("key: k1 payload: v1");
        DumpOptions hex =
                new DumpOptions(true, true, true, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);
        assertThat(DumpRun.of(hex, log).out()).contains("key: 6b30 payload: 7630");
    }

    @Test
    void tornTailIsReportedAsInvalidBytesNotAnException() {
        List<ByteBuffer> batches = LogFixture.plain(0, 3, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 4096);
        long valid = LogFixture.concat(batches).length;
        byte[] half = new byte[40];
        batches.get(0).duplicate().get(half);
        LogFixture.append(log, half);

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, log);

        assertThat(run.exit()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(run.batchLines()).hasSize(3);
        assertThat(run.out()).contains("40 invalid bytes at position " + valid + ": ");
    }

    @Test
    void aBadMagicInsideAWholeFrameIsShownInvalidAndTheWalkGoesOn() {
        List<ByteBuffer> batches = LogFixture.plain(0, 3, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 4096);
        long second = LogFixture.sizeOf(batches.get(0));
        LogFixture.flipByte(log, second + RecordBatchHeader.MAGIC_OFFSET);

        DumpRun run = DumpRun.of(DEEP, log);

        assertThat(run.exit()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(run.err()).contains(log + ":" + second + ": magic -3, expected 2");
        assertThat(run.batchLines()).hasSize(3);
        assertThat(run.batchLines().get(1))
                .startsWith("baseOffset: 5 lastOffset: 9 ")
                .contains("isvalid: false");
        assertThat(run.out())
                .doesNotContain("invalid bytes")
                .contains("| offset: 14 ")
                .doesNotContain("| offset: 5 ");
    }

    @Test
    void zeroFilledTailIsReportedAsZeroFilledInvalidBytes() {
        List<ByteBuffer> batches = LogFixture.plain(0, 2, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 4096);
        long valid = LogFixture.concat(batches).length;
        LogFixture.append(log, new byte[4096]);

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, log);

        assertThat(run.out()).contains("4096 invalid bytes at position " + valid + " (zero-filled)");
        assertThat(run.exit()).isEqualTo(ExitCodes.PROBLEMS);
    }

    @Test
    void fromAndToOffsetSeekWithTheIndexAndPrintOnlyTheWindow() {
        List<ByteBuffer> batches = LogFixture.plain(0, 50, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 256);
        DumpOptions window = new DumpOptions(false, false, false, 102, 121, Long.MAX_VALUE, false, false, false);

        DumpRun run = DumpRun.of(window, log);

        assertThat(run.batchLines()).hasSize(5);
        assertThat(run.batchLines().get(0)).startsWith("baseOffset: 100 lastOffset: 104 ");
        assertThat(run.batchLines().get(4)).startsWith("baseOffset: 120 lastOffset: 124 ");
        assertThat(run.exit()).isZero();
    }

    @Test
    void fromOffsetWithAGarbageIndexStillFindsTheBatches() throws Exception {
        List<ByteBuffer> batches = LogFixture.plain(0, 20, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 256);
        Files.write(dir.resolve(SegmentName.of(1, 0).indexFileName()), new byte[] {0, 0, 0, 3, 0, 0, 0, 17});
        DumpOptions from =
                new DumpOptions(false, false, false, 50, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);

        DumpRun run = DumpRun.of(from, log);

        assertThat(run.batchLines()).hasSize(10);
        assertThat(run.batchLines().get(0)).startsWith("baseOffset: 50 ");
    }

    @Test
    void maxBytesReadsOnlyWholeBatchesInsideTheWindowWithoutATailVerdict() {
        List<ByteBuffer> batches = LogFixture.plain(0, 10, 5);
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 4096);
        int one = batches.get(0).remaining();
        DumpOptions max = new DumpOptions(
                false, false, false, Long.MIN_VALUE, Long.MAX_VALUE, one * 2L + 10, false, false, false);

        DumpRun run = DumpRun.of(max, log);

        assertThat(run.batchLines()).hasSize(2);
        assertThat(run.out()).doesNotContain("invalid bytes");
        assertThat(run.exit()).isZero();
    }

    @Test
    void indexFilePrintsEntriesAndVerifiesThemAgainstTheLog() throws Exception {
        List<ByteBuffer> batches = LogFixture.plain(0, 30, 5);
        LogFixture.writeSegment(dir, SegmentName.of(1, 0), batches, 256);
        Path index = dir.resolve(SegmentName.of(1, 0).indexFileName());
        var expected = LogFixture.expectedIndex(batches, 256);

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, index);
        assertThat(run.exit()).isZero();
        assertThat(run.lines().stream().filter(l -> l.startsWith("offset: ")).toList())
                .hasSize(expected.size())
                .first()
                .isEqualTo("offset: " + expected.get(0).offset() + " position: "
                        + expected.get(0).position());

        DumpOptions verifyOnly = new DumpOptions(
                false, false, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, true, false, false);
        assertThat(DumpRun.of(verifyOnly, index).out()).doesNotContain("offset: ");

        // an entry pointing at the wrong batch: offset 3 at the position of the batch 25..29
        byte[] bytes = Files.readAllBytes(index);
        java.nio.ByteBuffer.wrap(bytes).putInt(0, 3);
        Files.write(index, bytes);
        DumpRun bad = DumpRun.of(verifyOnly, index);
        assertThat(bad.exit()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(bad.err())
                .contains(index + ":0: index entry 0 offset 3 points at position "
                        + expected.get(0).position());
    }

    @Test
    void indexSanityCheckPassesOrNamesTheBadEntry() throws Exception {
        LogFixture.writeSegment(dir, SegmentName.of(1, 0), LogFixture.plain(0, 30, 5), 256);
        Path index = dir.resolve(SegmentName.of(1, 0).indexFileName());
        DumpOptions sanity = new DumpOptions(
                false, false, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, true, false);

        assertThat(DumpRun.of(sanity, index).out()).contains(index + " passed sanity check.");

        byte[] bytes = Files.readAllBytes(index);
        java.nio.ByteBuffer.wrap(bytes).putInt(12, 0x7fffffff); // entry 1 points far past the log
        Files.write(index, bytes);
        DumpRun bad = DumpRun.of(sanity, index);
        assertThat(bad.exit()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(bad.err()).contains(index + ":8: entry 1 points at log position 2147483647");
    }

    @Test
    void emptyIndexAndZeroLengthSegment() throws Exception {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 7), List.of(), 4096);

        DumpRun logRun = DumpRun.of(DumpOptions.DEFAULTS, log);
        assertThat(logRun.exit()).isZero();
        assertThat(logRun.lines()).containsExactly("Dumping " + log, "Log starting offset: 7");

        Path index = dir.resolve(SegmentName.of(1, 7).indexFileName());
        assertThat(DumpRun.of(DumpOptions.DEFAULTS, index).out()).contains(index + " is empty.");
    }

    @Test
    void stateFilesArePrettyPrinted() {
        LogFixture.writeManifest(dir, 5, 1000, 10);

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, dir.resolve(Manifest.FILE_NAME));

        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("\"highWatermark\" : 1000").contains("\"logStartOffset\" : 10");
    }

    @Test
    void garbageStateFileMissingPathNonSegmentAndDirectoryAreUnreadable() throws Exception {
        Files.writeString(dir.resolve(Manifest.FILE_NAME), "{not json");
        Files.writeString(dir.resolve("notes.txt"), "hello");
        Path dirAsLog = Files.createDirectory(dir.resolve(SegmentName.of(1, 0).logFileName()));

        assertThat(DumpRun.of(DumpOptions.DEFAULTS, dir.resolve(Manifest.FILE_NAME)))
                .satisfies(r -> assertThat(r.exit()).isEqualTo(ExitCodes.UNREADABLE))
                .satisfies(r ->
                        assertThat(r.err()).startsWith(dir.resolve(Manifest.FILE_NAME) + ": not a valid Manifest"));
        assertThat(DumpRun.of(DumpOptions.DEFAULTS, dir.resolve("missing.log")).err())
                .isEqualTo(dir.resolve("missing.log") + ": no such file\n");
        assertThat(DumpRun.of(DumpOptions.DEFAULTS, dir.resolve("notes.txt")).exit())
                .isEqualTo(ExitCodes.UNREADABLE);
        DumpRun d = DumpRun.of(DumpOptions.DEFAULTS, dirAsLog);
        assertThat(d.exit()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(d.err()).contains(dirAsLog + ": is a directory");
    }

    @Test
    void jsonModePrintsOneParsableObjectPerLine() throws Exception {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), LogFixture.mixed(0), 4096);
        LogFixture.append(log, new byte[100]);
        DumpOptions json = DEEP.withJson(true);

        DumpRun run = DumpRun.of(json, log);

        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> nodes = run.lines().stream()
                .map(l -> {
                    try {
                        return mapper.readTree(l);
                    } catch (Exception e) {
                        throw new AssertionError("not JSON: " + l, e);
                    }
                })
                .toList();
        assertThat(nodes.get(0).get("type").asText()).isEqualTo("file");
        assertThat(nodes.stream().filter(n -> n.get("type").asText().equals("batch")))
                .hasSize(LogFixture.mixed(0).size());
        JsonNode tail = nodes.get(nodes.size() - 2);
        assertThat(tail.get("type").asText()).isEqualTo("invalid_bytes");
        assertThat(tail.get("bytes").asLong()).isEqualTo(100);
        assertThat(tail.get("zeroFilled").asBoolean()).isTrue();
        JsonNode summary = nodes.get(nodes.size() - 1);
        assertThat(summary.get("type").asText()).isEqualTo("summary");
        assertThat(summary.get("files").asInt()).isEqualTo(1);
        assertThat(summary.get("exitCode").asInt()).isEqualTo(run.exit());
        assertThat(run.err()).isEmpty();
    }

    @Test
    void aShareGroupStateFileIsPrintedAsTheBrokerReadsIt() throws Exception {
        Path file = Files.createDirectories(dir.resolve("data/__cluster/share_groups"))
                .resolve("g.json");
        Files.writeString(
                file,
                "{\"version\":1,\"groupId\":\"g\",\"partitions\":[{\"topicId\":\"AAAAAAAAAAAAAAAAAAAAAQ\","
                        + "\"topic\":\"t\",\"partition\":0,\"startOffset\":3,\"endOffset\":5,\"records\":"
                        + "[{\"offset\":3,\"state\":\"ACQUIRED\",\"deliveryCount\":2}],\"future\":1}]}");
        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, file);
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out())
                .contains("\"groupId\" : \"g\"")
                .contains("\"deliveryCount\" : 2")
                .doesNotContain("future");
        Files.writeString(file, "{\"version\":1,\"groupId\":");
        assertThat(DumpRun.of(DumpOptions.DEFAULTS, file).exit()).isEqualTo(ExitCodes.UNREADABLE);
    }
}
