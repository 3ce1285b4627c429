package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive the build just made (failsafe runs this after package): unpacked into an empty
 * directory, run from another one with nothing of the checkout around, {@code kaas --version} answers
 * and {@code kaas serve} becomes ready.
 */
class ReleaseArchiveIT {
    private static final String VERSION = System.getProperty("kaas.project.version");

    @Test
    void unpackedArchiveRunsFromAnyDirectory(@TempDir Path dir) throws Exception {
        Path archive = Path.of(System.getProperty("kaas.release.archive"));
        assertThat(archive).exists();
        Path install = Files.createDirectory(dir.resolve("opt"));
        assertThat(run(dir, List.of("tar", "-xzf", archive.toString(), "-C", install.toString()), Map.of()).exitCode)
                .isZero();

        Path home = install.resolve("kaas-" + VERSION);
        assertThat(home.resolve("bin/kaas")).isExecutable();
        assertThat(home.resolve("lib/kaas-cli.jar")).isRegularFile();
        assertThat(home.resolve("lib/offline.classpath")).isRegularFile();
        assertThat(home.resolve("lib/broker.classpath")).isRegularFile();
        assertThat(home.resolve("lib"))
                .as("the build's own CDS archive is tied to cli/target's path")
                .isDirectoryNotContaining("glob:**/kaas.jsa");
        assertThat(home.resolve("man/kaas.1")).isRegularFile();
        assertThat(home.resolve("man/kaas-serve.1")).isRegularFile();
        assertThat(home.resolve("completions/kaas.bash")).isRegularFile();
        assertThat(home.resolve("README.md")).isRegularFile();
        assertThat(home.resolve("LICENSE")).content().contains("Apache License", "Version 2.0, January 2004");
        assertThat(home.resolve("NOTICE")).content().contains("Apache Kafka");
        assertThat(home.resolve("THIRD-PARTY.txt"))
                .content()
                .as("every bundled library with its licence, Kafka's and Netty's among them")
                .contains(
                        "org.apache.kafka:kafka-clients",
                        "io.netty:netty-handler",
                        "io.prometheus:prometheus-metrics-core");

        Path elsewhere = Files.createDirectory(dir.resolve("work"));
        Result version = run(elsewhere, List.of(home.resolve("bin/kaas").toString(), "--version"), Map.of());
        assertThat(version.exitCode).isZero();
        assertThat(version.output).contains("kaas " + VERSION);
        assertThat(home.resolve("lib/kaas.jsa"))
                .as("the first offline command records the CDS archive in place")
                .isRegularFile();
        assertThat(home.resolve("lib")).isDirectoryNotContaining("glob:**/kaas.jsa.*");
        Result shared = run(
                elsewhere,
                List.of(
                        home.resolve("bin/kaas").toString(),
                        "verify",
                        home.resolve("lib/cds-training").toString()),
                Map.of("KAAS_JAVA_OPTS", "-Xlog:class+load=info"));
        assertThat(shared.exitCode).as(shared.output).isZero();
        assertThat(shared.output)
                .as("later runs load kaas's classes from it")
                .containsPattern("io\\.kaas\\.inspect\\.\\S+ source: shared objects file \\(top\\)");

        int adminPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            adminPort = free.getLocalPort(); // free a moment ago: another process taking it now is a remote chance
        }
        Path log = elsewhere.resolve("serve.log");
        Process serve = process(
                        elsewhere,
                        List.of(
                                home.resolve("bin/kaas").toString(),
                                "serve",
                                "--listeners",
                                "PLAINTEXT://127.0.0.1:0",
                                "--admin-listener",
                                "127.0.0.1:" + adminPort),
                        Map.of())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                    .build();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> http.send(readyz, HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200);
        } finally {
            serve.destroy(); // SIGTERM: a clean stop
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        // The JVM reports the signal that ended it (128 + 15), after the shutdown hook's clean stop.
        assertThat(serve.exitValue()).as(Files.readString(log)).isEqualTo(143);
        assertThat(Files.readString(log)).contains("kaas broker 0 stopped");
        assertThat(elsewhere.resolve("kaas-data"))
                .as("the default data dir is relative to where it runs")
                .isDirectory();
    }

    private record Result(int exitCode, String output) {}

    private static ProcessBuilder process(Path cwd, List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        // Nothing of the build may leak in: the archive finds its own lib/.
        pb.environment().keySet().removeIf(k -> k.startsWith("KAAS_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        return pb;
    }

    private static Result run(Path cwd, List<String> command, Map<String, String> env)
            throws IOException, InterruptedException {
        Process p = process(cwd, command, env).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }
}
