package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every offline command pointed at a path with no kaas or Kafka data under it (a directory such as
 * /etc, an empty one, one that does not exist) says so and exits 3, instead of "0 partition(s)" and 0:
 * an operator who mistyped the path in a runbook must not read that as "all clean".
 */
class OfflinePathCommandTest {
    @TempDir
    Path dir;

    /** The offline commands that take a PATH, each with the options it needs besides it. */
    private static final List<List<String>> PATH_COMMANDS = List.of(
            List.of("verify"),
            List.of("verify", "--json"),
            List.of("recover"),
            List.of("recover", "--dry-run"),
            List.of("rebuild-index"),
            List.of("rebuild-index", "--check"),
            List.of("compact"),
            List.of("compact", "--dry-run"));

    @Test
    void aPathWithNoDataIsNamedAndExitsThree() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path etcLike = Files.createDirectories(dir.resolve("etc/ssl"));
        Files.writeString(etcLike.resolve("openssl.cnf"), "x");
        Files.writeString(dir.resolve("etc/hostname"), "h");
        Path missing = dir.resolve("nope");
        SortedMap<String, String> before = LogFixture.snapshot(dir);
        for (Path path : List.of(empty, dir.resolve("etc"), missing)) {
            for (List<String> command : PATH_COMMANDS) {
                List<String> args = new ArrayList<>(command);
                args.add(path.toString());
                KaasRun r = KaasRun.of(args.toArray(String[]::new));
                assertThat(r.exitCode()).as(args + ": " + r.err()).isEqualTo(ExitCodes.UNREADABLE);
                assertThat(r.out() + r.err())
                        .as(args.toString())
                        .contains(path.toString())
                        .containsAnyOf("no kaas or Kafka partition data found", "no such file or directory");
                assertThat(r.err()).as(args.toString()).doesNotContain("0 partition(s)");
            }
        }
        assertThat(LogFixture.snapshot(dir)).as("nothing created or changed").isEqualTo(before);
    }

    @Test
    void theRealEtcIsNoDataEither() {
        for (List<String> command : PATH_COMMANDS) {
            List<String> args = new ArrayList<>(command);
            args.add("/etc");
            KaasRun r = KaasRun.of(args.toArray(String[]::new));
            assertThat(r.exitCode()).as(args + ": " + r.err()).isEqualTo(ExitCodes.UNREADABLE);
            assertThat(r.out() + r.err()).contains("/etc: no kaas or Kafka partition data found");
        }
    }

    @Test
    void deleteRecordsAndDumpSegmentToo() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        KaasRun delete = KaasRun.of(
                "delete-records", "--data-dir", empty.toString(), "--topic", "t", "--partition", "0", "--offset", "1");
        assertThat(delete.exitCode()).as(delete.err()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(delete.err()).contains(empty + ": no kaas or Kafka partition data found");
        KaasRun missing = KaasRun.of(
                "delete-records",
                "--data-dir",
                dir.resolve("nope").toString(),
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                "1");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(missing.err()).contains(dir.resolve("nope") + ": no such data directory");

        KaasRun dump = KaasRun.of("dump-segment", empty.toString());
        assertThat(dump.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(dump.err()).contains(empty.toString());
        assertThat(KaasRun.of("dump-segment", dir.resolve("nope.log").toString())
                        .exitCode())
                .isEqualTo(ExitCodes.UNREADABLE);
    }

    @Test
    void aKaasDataDirWithoutTopicsYetIsNotAnError() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data/__cluster")).getParent();
        KaasRun r = KaasRun.of("verify", data.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("verified 0 partition(s)");
    }

    @Test
    void aFileWhereTheDataDirShouldBeIsNotADirectoryExitThree() throws Exception {
        // ENOTDIR: unlike EACCES, root cannot bypass it, so this runs honestly as root in CI too.
        Path file = Files.writeString(dir.resolve("data"), "x");
        for (List<String> command : PATH_COMMANDS) {
            List<String> args = new ArrayList<>(command);
            args.add(file.resolve("t/0").toString());
            KaasRun r = KaasRun.of(args.toArray(String[]::new));
            assertThat(r.exitCode()).as(args + ": " + r.err()).isEqualTo(ExitCodes.UNREADABLE);
            assertThat(r.out() + r.err()).contains(file.resolve("t/0").toString());
        }
    }
}
