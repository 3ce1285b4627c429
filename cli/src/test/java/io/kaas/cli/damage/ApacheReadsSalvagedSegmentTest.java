package io.kaas.cli.damage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.cli.KaasRun;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.SegmentName;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.DumpLogSegments;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch damaged in the middle of a closed segment, salvaged by {@code kaas recover --force} (the damaged
 * batch removed, every intact batch after it kept, an offset gap left): Apache's own {@code DumpLogSegments}
 * reads the salvaged segment with --deep-iteration, every batch valid, and finds the batches after the damage.
 */
class ApacheReadsSalvagedSegmentTest {
    @TempDir
    Path dir;

    @BeforeEach
    void stopApacheFromExiting() {
        Exit.setExitProcedure((code, message) -> {});
    }

    @AfterEach
    void restoreExit() {
        Exit.resetExitProcedure();
    }

    @Test
    void dumpLogSegmentsReadsASalvagedSegment() throws Exception {
        Path data = dir.resolve("data");
        Path partition = Scenario.PLAIN.build(data);
        Path log = Damager.segmentLogs(partition).get(0);
        byte[] bytes = Files.readAllBytes(log);
        List<int[]> batches = Damager.framed(bytes);
        assertThat(batches).as("batches in the first segment").hasSizeGreaterThan(4);
        int[] victim = batches.get(2);
        int[] last = batches.get(batches.size() - 1);
        long lastOffset =
                RecordBatchHeader.peek(java.nio.ByteBuffer.wrap(bytes), last[0]).lastOffset();
        bytes[victim[0] + RecordBatchHeader.RECORDS_OFFSET + 3] ^=
                0x10; // inside the records: the CRC no longer matches
        Files.write(log, bytes);

        List<String> damaged = apacheDump(log, dir.resolve("apache-damaged"));
        assertThat(damaged)
                .as("the damage is visible to Apache: the check below can fail")
                .anyMatch(l -> l.contains("isvalid: false"));

        KaasRun salvage = KaasRun.of("recover", "--force", data.toString());
        assertThat(salvage.exitCode()).as(salvage.toString()).isZero();

        List<String> salvaged = apacheDump(log, dir.resolve("apache-salvaged"));
        List<String> batchLines =
                salvaged.stream().filter(l -> l.startsWith("baseOffset:")).toList();
        assertThat(batchLines)
                .as(String.join("\n", salvaged))
                .hasSize(batches.size() - 1)
                .allMatch(l -> l.contains("isvalid: true"));
        assertThat(salvaged)
                .as("deep iteration reads every record")
                .anyMatch(l -> l.startsWith("| offset:"))
                .noneMatch(l -> l.contains("Exception") || l.contains("corrupt") || l.contains("invalid"));
        assertThat(batchLines.get(batchLines.size() - 1))
                .as("the intact batches after the damage are kept")
                .contains("lastOffset: " + lastOffset + " ");
        assertThat(KaasRun.of("verify", data.toString()).exitCode()).isZero();
    }

    /** DumpLogSegments --deep-iteration on a copy of {@code log} under Apache's file name: its stdout and stderr lines. */
    private static List<String> apacheDump(Path log, Path apacheDir) throws Exception {
        Files.createDirectories(apacheDir);
        SegmentName name = SegmentName.parse(log.getFileName().toString()).orElseThrow();
        Path copy = Files.copy(log, apacheDir.resolve(new SegmentName(-1, name.baseOffset(), true).logFileName()));
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            DumpLogSegments.main(new String[] {"--deep-iteration", "--files", copy.toString()});
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new ArrayList<>(captured.toString(StandardCharsets.UTF_8).lines().toList());
    }
}
