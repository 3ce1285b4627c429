package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.TopicConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kaas serve}'s log lines, from a real child JVM: the events an operator needs, as text or one JSON object per line. */
class ServeLogIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<String> serveUntilStopped(Path dir, String... logOptions) throws Exception {
        Path data = dir.resolve("data");
        try (DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(data))) {
            engine.createTopic("logged", 2, TopicConfig.EMPTY);
        }
        Path log = dir.resolve("serve.log");
        int adminPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            adminPort = free.getLocalPort(); // free a moment ago: another process taking it now is a remote chance
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                ChildJvm.classpath(),
                "io.kaas.cli.Kaas",
                "serve",
                "--listeners",
                "PLAINTEXT://127.0.0.1:0",
                "--admin-listener",
                "127.0.0.1:" + adminPort,
                "--data-dir",
                data.toString()));
        command.addAll(List.of(logOptions));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                .build();
        try {
            // Ready = listeners bound and both partitions recovered: every line this test looks for is written.
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> http.send(readyz, HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200);
        } finally {
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        return Files.readAllLines(log);
    }

    @Test
    void jsonIsOneObjectPerLineWithStartSummaryListenersRecoveryAndShutdown(@TempDir Path dir) throws Exception {
        List<String> lines = serveUntilStopped(dir, "--log-format", "json");
        List<String> messages = new ArrayList<>();
        for (String line : lines) {
            JsonNode event = JSON.readTree(line);
            assertThat(event.isObject()).as(line).isTrue();
            assertThat(event.get("level").asText()).isIn("INFO", "WARN", "ERROR");
            assertThat(event.has("timestamp") && event.has("loggerName") && event.has("threadName"))
                    .as(line)
                    .isTrue();
            messages.add(event.get("formattedMessage").asText());
        }
        assertThat(messages)
                .anySatisfy(m -> assertThat(m)
                        .startsWith("kaas " + System.getProperty("kaas.project.version")
                                + " starting: listeners [PLAINTEXT://127.0.0.1:0]")
                        .contains("flush interval 1 messages")
                        .contains("log json/info"));
        assertThat(messages).anySatisfy(m -> assertThat(m).contains("listening on"));
        assertThat(messages)
                .anySatisfy(m ->
                        assertThat(m).matches("logged-0: recovered in \\d+ ms: \\d+ segments, \\d+ bytes scanned"));
        assertThat(messages).anySatisfy(m -> assertThat(m).startsWith("logged-1: recovered"));
        assertThat(messages).anySatisfy(m -> assertThat(m).isEqualTo("kaas broker 0 stopped"));
    }

    @Test
    void textHasTimestampsAndTheLevelFilters(@TempDir Path dir) throws Exception {
        List<String> lines = serveUntilStopped(dir, "--log-level", "WARN");
        assertThat(lines).noneSatisfy(l -> assertThat(l).contains(" INFO "));

        List<String> info = serveUntilStopped(dir.resolve("again"));
        assertThat(info)
                .allSatisfy(
                        l -> assertThat(l)
                                .matches(
                                        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z \\[.+\\] (INFO|WARN|ERROR) \\S+ - .*"));
    }

    @Test
    void anUnknownFormatOrLevelIsAUsageError() {
        KaasRun run = KaasRun.of("serve", "--log-format", "xml");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--log-format 'xml' is not text or json");
        KaasRun level = KaasRun.of("serve", "--log-level", "loud");
        assertThat(level.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(level.err()).contains("--log-level 'loud'");
    }
}
