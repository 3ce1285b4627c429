package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpSegmentCommandTest {
    @TempDir
    Path dir;

    @Test
    void dumpsASegmentAndExitsZero() {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), LogFixture.mixed(0), 4096);

        CliRun r = CliRun.run(new DumpSegmentCommand(), "--deep-iteration", log.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("baseOffset: 0 lastOffset: 2 count: 3 ").contains("| offset: 0 CreateTime: ");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void tornTailExitsOneWithTheInvalidBytesLine() {
        Path log = LogFixture.writeSegment(dir, SegmentName.of(1, 0), LogFixture.plain(0, 2, 3), 4096);
        LogFixture.append(log, new byte[10]);

        CliRun r = CliRun.run(new DumpSegmentCommand(), "--files", log.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).containsPattern("10 invalid bytes at position \\d+ \\(zero-filled\\)");
    }

    @Test
    void missingFileExitsThreeWithOneLine() {
        CliRun r = CliRun.run(new DumpSegmentCommand(), dir.resolve("nope.log").toString());

        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).isEqualTo(dir.resolve("nope.log") + ": no such file\n");
    }

    @Test
    void usageErrorsExitTwoAndHelpExitsZero() {
        assertThat(CliRun.run(new DumpSegmentCommand()).exit()).isEqualTo(2);
        assertThat(CliRun.run(new DumpSegmentCommand(), "--bogus", "x").exit()).isEqualTo(2);
        CliRun help = CliRun.run(new DumpSegmentCommand(), "--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("--deep-iteration").contains("Exit Codes:");
    }
}
