package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a subcommand gets from {@link Kaas} without writing it: error handling, exit codes, help and
 * the shared mixins. Runs a test-only command ({@link Probe}) added to the real tree.
 */
class ConventionsTest {

    @Command(name = "probe", description = "Test-only command.")
    static final class Probe implements Callable<Integer> {
        @Mixin
        DataDirMixin dataDir;

        @Mixin
        JsonOutputMixin json;

        @Mixin
        ColorMixin color;

        @Option(names = "--fail-with", description = "Throw this kind of error.")
        String failWith = "none";

        @Option(names = "--path")
        Path path;

        @Override
        public Integer call() throws Exception {
            switch (failWith) {
                case "missing" -> throw new NoSuchFileException(path.toString());
                case "denied" -> throw new AccessDeniedException(path.toString());
                case "disk-full" -> throw new FileSystemException(path.toString(), null, "No space left on device");
                case "unchecked" -> throw new UncheckedIOException(new NoSuchFileException(path.toString()));
                case "storage" ->
                    throw new StorageException(
                            StorageException.Kind.LOCKED,
                            path + "/.lock: partition is owned by a running broker (pid 42)");
                case "io" -> throw new IOException(path + ": short read at byte 4096");
                case "bug" -> throw new IllegalStateException("invariant broken");
                default -> {}
            }
            return ExitCodes.OK;
        }
    }

    private static KaasRun probe(String... args) {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        kaas.addSubcommand(new Probe());
        Kaas.applyConventions(kaas);
        return KaasRun.of(kaas, prepend("probe", args));
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void missingFileIsOneLineAndExitThree(@TempDir Path dir) {
        Path missing = dir.resolve("topic/0/00000000-00000000000000000000.log");

        KaasRun run = probe("--fail-with", "missing", "--path", missing.toString());

        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err())
                .isEqualTo("kaas probe: " + missing + ": no such file or directory" + System.lineSeparator());
    }

    @Test
    void expectedDataErrorsNameTheFileWithoutAStackTrace() {
        assertThat(probe("--fail-with", "denied", "--path", "/data/t/0").err())
                .isEqualTo("kaas probe: /data/t/0: permission denied" + System.lineSeparator());
        assertThat(probe("--fail-with", "disk-full", "--path", "/data/t/0/x.log")
                        .err())
                .isEqualTo("kaas probe: /data/t/0/x.log: no space left on device" + System.lineSeparator());
        assertThat(probe("--fail-with", "unchecked", "--path", "/data/t").err())
                .isEqualTo("kaas probe: /data/t: no such file or directory" + System.lineSeparator());
        assertThat(probe("--fail-with", "io", "--path", "/data/t/0/x.log").err())
                .isEqualTo("kaas probe: /data/t/0/x.log: short read at byte 4096" + System.lineSeparator());
        KaasRun locked = probe("--fail-with", "storage", "--path", "/data/t/0");
        assertThat(locked.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(locked.err())
                .isEqualTo("kaas probe: /data/t/0/.lock: partition is owned by a running broker (pid 42)"
                        + System.lineSeparator());
    }

    @Test
    void aBugShowsItsStackTraceAndExitsSeventy() {
        KaasRun run = probe("--fail-with", "bug");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.INTERNAL_ERROR);
        assertThat(run.err())
                .contains(
                        "internal error",
                        "java.lang.IllegalStateException: invariant broken",
                        "at io.kaas.cli.ConventionsTest$Probe.call");
    }

    @Test
    void subcommandGetsHelpVersionExitCodesAndTheSharedOptions() {
        KaasRun help = probe("--help");
        KaasRun version = probe("--version");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .contains(
                        "Usage: kaas probe",
                        "-h, --help",
                        "-V, --version",
                        "--data-dir=DIR",
                        "$KAAS_DATA_DIR",
                        "--json",
                        "Exit Codes:",
                        "  3    Data could not be read");
        assertThat(version.out()).startsWith("kaas ");
    }

    @Test
    void dataDirFlagAndDefault() {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        Probe probe = new Probe();
        kaas.addSubcommand(probe);

        kaas.parseArgs("probe", "--data-dir", "/srv/kaas", "--json");
        assertThat(probe.dataDir.dataDir()).isEqualTo(Path.of("/srv/kaas"));
        assertThat(probe.json.json()).isTrue();

        kaas.parseArgs("probe");
        String fromEnv = System.getenv("KAAS_DATA_DIR");
        assertThat(probe.dataDir.dataDir()).isEqualTo(Path.of(fromEnv != null ? fromEnv : "./kaas-data"));
        assertThat(probe.json.json()).isFalse();
    }

    @Test
    void colorMixinStripsMarkupUnlessTheStreamShowsColour() {
        CommandLine plain = Kaas.newCommandLine(Terminal.PLAIN);
        Probe plainProbe = new Probe();
        plain.addSubcommand(plainProbe);
        CommandLine tty = Kaas.newCommandLine(new Terminal(true, false, true));
        Probe ttyProbe = new Probe();
        tty.addSubcommand(ttyProbe);

        assertThat(plainProbe.color.stdout("@|bold,red CORRUPT|@ x.log")).isEqualTo("CORRUPT x.log");
        assertThat(ttyProbe.color.stdout("@|bold,red CORRUPT|@ x.log"))
                .contains("\u001b[")
                .contains("CORRUPT");
        assertThat(ttyProbe.color.stderr("@|bold,red CORRUPT|@")).isEqualTo("CORRUPT");
        assertThat(ttyProbe.color.progressOnStderr()).isFalse();
    }
}
