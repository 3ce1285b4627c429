package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * bin/kaas in the checkout starts offline commands from the class-data-sharing archive the build recorded in
 * lib/, picocli's classes included.
 */
class LauncherCdsIT {
    @Test
    void offlineCommandsLoadTheirClassesFromTheArchive() throws Exception {
        Path root = Path.of(System.getProperty("kaas.repo.root"));
        assertThat(root.resolve("cli/target/lib/kaas.jsa")).isRegularFile();
        ProcessBuilder pb = new ProcessBuilder(
                        root.resolve("bin/kaas").toString(),
                        "verify",
                        root.resolve("cli/src/cds/training").toString())
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("KAAS_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("KAAS_JAVA_OPTS", "-Xlog:class+load=info");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out)
                .contains("verified 1 partition(s)")
                .containsPattern("io\\.kaas\\.inspect\\.\\S+ source: shared objects file \\(top\\)")
                // picocli's jar as the build rewrote it (ClassFileUpgrade): Java 5 class files are never archived.
                .containsPattern("picocli\\.CommandLine source: shared objects file \\(top\\)")
                .doesNotContainPattern("picocli\\.\\S+ source: file:");
    }
}
