package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RebuildIndexCommandTest {
    @TempDir
    Path data;

    Path p0;
    Path index0;
    Path log0;
    byte[] brokerIndex;

    @BeforeEach
    void partition() throws Exception {
        p0 = LogFixture.partition(data, "t", 0, 2, 40); // indexes written with interval 256
        index0 = p0.resolve(SegmentName.of(1, 0).indexFileName());
        log0 = p0.resolve(SegmentName.of(1, 0).logFileName());
        brokerIndex = Files.readAllBytes(index0);
        assertThat(brokerIndex.length).isGreaterThan(8);
    }

    @Test
    void checkAgainstTheSameIntervalFindsNothingAndAnotherIntervalDiffers() throws Exception {
        CliRun same =
                CliRun.run(new RebuildIndexCommand(), "--check", "--index-interval-bytes", "256", data.toString());
        assertThat(same.exit()).as(same.toString()).isZero();
        assertThat(same.out()).contains("unchanged " + index0);

        CliRun other = CliRun.run(new RebuildIndexCommand(), "--check", p0.toString());
        assertThat(other.exit()).isEqualTo(1);
        assertThat(other.out()).contains("differs " + index0 + ": ");
        assertThat(Files.readAllBytes(index0)).isEqualTo(brokerIndex);
    }

    @Test
    void missingAndGarbageIndexesAreRewrittenWithTheBrokersBytes() throws Exception {
        Files.delete(index0);
        Path index1 = p0.resolve(SegmentName.of(1, 200).indexFileName());
        byte[] broker1 = Files.readAllBytes(index1);
        Files.write(index1, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});

        CliRun r = CliRun.run(new RebuildIndexCommand(), "--index-interval-bytes", "256", p0.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains("rebuilt " + index0 + ": ")
                .contains("was missing")
                .contains("rebuilt " + index1);
        assertThat(Files.readAllBytes(index0)).isEqualTo(brokerIndex);
        assertThat(Files.readAllBytes(index1)).isEqualTo(broker1);
        assertThat(p0.resolve(index0.getFileName() + ".tmp")).doesNotExist();
    }

    @Test
    void dryRunChangesNoByte() throws Exception {
        Files.write(index0, new byte[] {9, 9, 9});

        CliRun r = CliRun.run(new RebuildIndexCommand(), "--dry-run", "--index-interval-bytes", "256", log0.toString());

        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("would rebuild " + index0);
        assertThat(Files.readAllBytes(index0)).containsExactly(9, 9, 9);
    }

    @Test
    void tornTailIsLeftAloneAndOnlyTheValidPartIndexed() throws Exception {
        Path active = p0.resolve(SegmentName.of(1, 200).logFileName());
        Path activeIndex = p0.resolve(SegmentName.of(1, 200).indexFileName());
        LogFixture.append(active, new byte[300]);
        long size = Files.size(active);

        CliRun r = CliRun.run(new RebuildIndexCommand(), "--index-interval-bytes", "256", active.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("unchanged " + activeIndex).contains("log has 300 invalid bytes");
        assertThat(Files.size(active)).isEqualTo(size);
    }

    @Test
    void aPartitionRecoverRefusesIsRefusedAndNoIndexIsWritten() throws Exception {
        // Bad bytes at the end of a closed segment are damage (the next segment continues the log), not a torn tail.
        LogFixture.append(log0, new byte[300]);
        Files.delete(index0);
        var before = LogFixture.snapshot(p0);

        CliRun r = CliRun.run(new RebuildIndexCommand(), "--index-interval-bytes", "256", p0.toString());
        CliRun recover = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());

        assertThat(recover.exit()).isEqualTo(1);
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains(log0 + ":").contains("damaged").contains("no index was rewritten");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);
    }

    @Test
    void refusesAPartitionABrokerOwnsUnlessForced() throws Exception {
        Files.delete(index0);
        try (FileChannel ch =
                        FileChannel.open(p0.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            CliRun refused = CliRun.run(new RebuildIndexCommand(), p0.toString());
            assertThat(refused.exit()).isEqualTo(3);
            assertThat(refused.err().lines().findFirst().orElseThrow())
                    .isEqualTo(p0.resolve(".lock")
                            + ": partition is owned by a running broker (lock held); stop the broker or pass --force");
            assertThat(index0).doesNotExist();

            CliRun check = CliRun.run(new RebuildIndexCommand(), "--check", p0.toString());
            assertThat(check.exit())
                    .as("--check writes nothing, so it needs no lock")
                    .isEqualTo(1);

            CliRun forced = CliRun.run(new RebuildIndexCommand(), "--force", p0.toString());
            assertThat(forced.exit()).isZero();
            assertThat(index0).exists();
        }
        // lock released: the same command now succeeds without --force
        assertThat(CliRun.run(new RebuildIndexCommand(), p0.toString()).exit()).isZero();
    }

    @Test
    void unreadableInputsExitThree() throws Exception {
        assertThat(CliRun.run(new RebuildIndexCommand(), data.resolve("nope").toString())
                        .exit())
                .isEqualTo(3);
        Files.writeString(data.resolve("x.txt"), "x");
        CliRun notSegment =
                CliRun.run(new RebuildIndexCommand(), data.resolve("x.txt").toString());
        assertThat(notSegment.exit()).isEqualTo(3);
        assertThat(notSegment.err()).startsWith(data.resolve("x.txt") + ": not a segment file");
        Files.createDirectory(p0.resolve(SegmentName.of(1, 400).logFileName()));
        CliRun dirAsLog = CliRun.run(new RebuildIndexCommand(), p0.toString());
        assertThat(dirAsLog.exit()).isEqualTo(3);
        assertThat(dirAsLog.err())
                .contains(p0.resolve(SegmentName.of(1, 400).logFileName()).toString());
    }

    @Test
    void helpAndUsage() {
        assertThat(CliRun.run(new RebuildIndexCommand(), "--help").out())
                .contains("--index-interval-bytes")
                .contains("Exit Codes:");
        assertThat(CliRun.run(new RebuildIndexCommand()).exit()).isEqualTo(2);
        assertThat(CliRun.run(new RebuildIndexCommand(), "--index-interval-bytes", "x", "p")
                        .exit())
                .isEqualTo(2);
    }
}
