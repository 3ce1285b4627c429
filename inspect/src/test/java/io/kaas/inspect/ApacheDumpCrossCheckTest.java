package io.kaas.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.DumpLogSegments;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs Apache's own {@code DumpLogSegments} in-process on the same files and asserts that every
 * batch line kaas prints is the line Apache prints, field for field.
 */
class ApacheDumpCrossCheckTest {
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
    void batchLinesEqualApacheOnEveryCodecTransactionalAndControlBatches() throws Exception {
        List<ByteBuffer> batches = LogFixture.mixed(0);
        Path log = LogFixture.writeSegment(dir, new SegmentName(-1, 0, true), batches, 64);

        List<String> apache = apacheBatchLines(log, false);
        List<String> kaas = DumpRun.of(DumpOptions.DEFAULTS, log).batchLines();

        assertThat(apache).hasSize(batches.size());
        assertThat(kaas).containsExactlyElementsOf(apache);
    }

    @Test
    void batchLinesEqualApacheOnASegmentNotStartingAtZero() throws Exception {
        List<ByteBuffer> batches = LogFixture.mixed(1000);
        Path log = LogFixture.writeSegment(dir, new SegmentName(-1, 1000, true), batches, 4096);

        assertThat(DumpRun.of(DumpOptions.DEFAULTS, log).batchLines())
                .containsExactlyElementsOf(apacheBatchLines(log, false));
    }

    @Test
    void deepIterationRecordLinesEqualApacheForKaasSegments() throws Exception {
        List<ByteBuffer> batches = LogFixture.mixed(0);
        Path log = LogFixture.writeSegment(dir, new SegmentName(-1, 0, true), batches, 4096);
        DumpOptions deep = new DumpOptions(
                true, false, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);

        List<String> apache = apacheLines(log, true).stream()
                .filter(l -> l.startsWith("| offset:"))
                .toList();
        List<String> kaas = DumpRun.of(deep, log).lines().stream()
                .filter(l -> l.startsWith("| offset:"))
                .toList();

        assertThat(apache).isNotEmpty();
        assertThat(kaas).containsExactlyElementsOf(apache);
    }

    @Test
    void printDataLogLinesEqualApache() throws Exception {
        Path log = LogFixture.writeSegment(dir, new SegmentName(-1, 0, true), LogFixture.mixed(0), 4096);
        DumpOptions data =
                new DumpOptions(true, true, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);

        List<String> apache = apacheLines(log, "--print-data-log").stream()
                .filter(l -> l.startsWith("| offset:"))
                .toList();
        List<String> kaas = DumpRun.of(data, log).lines().stream()
                .filter(l -> l.startsWith("| offset:"))
                .toList();

        assertThat(apache).anyMatch(l -> l.contains(" key: k0 payload: v0"));
        assertThat(kaas).containsExactlyElementsOf(apache);
    }

    @Test
    void aFlippedByteShowsTheSameInvalidBatchAsApache() throws Exception {
        List<ByteBuffer> batches = LogFixture.plain(0, 4, 5);
        Path log = LogFixture.writeSegment(dir, new SegmentName(-1, 0, true), batches, 4096);
        long second = batches.get(0).remaining();
        LogFixture.flipByte(log, second + 70); // inside the records of the second batch

        DumpRun run = DumpRun.of(DumpOptions.DEFAULTS, log);

        assertThat(run.batchLines()).containsExactlyElementsOf(apacheBatchLines(log, false));
        assertThat(run.batchLines().get(1)).endsWith("isvalid: false");
        assertThat(run.exit()).isEqualTo(ExitCodes.PROBLEMS);
    }

    @Test
    void batchLinesEqualApacheOnSegmentsTheEngineWrote() throws Exception {
        Path data = dir.resolve("data");
        try (DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(data).withSegmentBytes(2048))) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            PartitionLog log = engine.partition(new TopicPartition("t", 0));
            for (int i = 0; i < 40; i++) {
                log.append(LogFixture.batch(0, LogFixture.CODECS.get(i % LogFixture.CODECS.size()), 10), Acks.ALL, 0)
                        .get(10, TimeUnit.SECONDS);
            }
        }
        List<Path> logs;
        try (var files = Files.list(data.resolve("t/0"))) {
            logs = files.filter(f -> f.toString().endsWith(".log")).sorted().toList();
        }
        assertThat(logs).hasSizeGreaterThan(1);
        Path apacheDir = Files.createDirectory(dir.resolve("apache"));
        for (Path kaasLog : logs) {
            SegmentName name =
                    SegmentName.parse(kaasLog.getFileName().toString()).orElseThrow();
            Path copy =
                    Files.copy(kaasLog, apacheDir.resolve(new SegmentName(-1, name.baseOffset(), true).logFileName()));
            List<String> apache = apacheBatchLines(copy, false);
            assertThat(apache).isNotEmpty();
            assertThat(DumpRun.of(DumpOptions.DEFAULTS, kaasLog).batchLines()).containsExactlyElementsOf(apache);
        }
    }

    private List<String> apacheBatchLines(Path log, boolean deep) throws Exception {
        return apacheLines(log, deep).stream()
                .filter(l -> l.startsWith("baseOffset:"))
                .toList();
    }

    private static List<String> apacheLines(Path log, boolean deep) throws Exception {
        return deep ? apacheLines(log, "--deep-iteration") : apacheLines(log, new String[0]);
    }

    private static List<String> apacheLines(Path log, String... flags) throws Exception {
        assertThat(Files.exists(log)).isTrue();
        List<String> args = new ArrayList<>(List.of("--files", log.toString()));
        args.addAll(List.of(flags));
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            DumpLogSegments.main(args.toArray(String[]::new));
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
