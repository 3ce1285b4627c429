package io.kaas.cli.crash;

import static org.awaitility.Awaitility.await;

import io.kaas.cli.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code kaas serve} as a real child JVM on an ephemeral loopback port; owned by the test that starts it.
 * It runs on the test classpath, so it logs as the test resources' simplelogger.properties says (WARN,
 * plus the broker's INFO "listening on" line this class waits for).
 */
final class BrokerProcess implements AutoCloseable {
    private static final Pattern LISTENING =
            Pattern.compile("listening on .*advertised PLAINTEXT://127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final Path log;
    final int port;

    private BrokerProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** {@code extraArgs}: more {@code kaas serve} options (e.g. {@code --transaction-version 1}). */
    static BrokerProcess start(Path dataDir, Path log, int segmentBytes, String... extraArgs) throws Exception {
        return start(dataDir, log, segmentBytes, 0, extraArgs);
    }

    /** On {@code port} (0: ephemeral): a broker restarted on its old port is found again by clients that outlive it. */
    static BrokerProcess start(Path dataDir, Path log, int segmentBytes, int port, String... extraArgs)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                ChildJvm.classpath(),
                "io.kaas.cli.Kaas",
                "serve",
                "--listeners",
                "PLAINTEXT://127.0.0.1:" + port,
                "--data-dir",
                dataDir.toString(),
                "--admin-listener",
                "127.0.0.1:0",
                "--segment-bytes",
                Integer.toString(segmentBytes),
                "--num-partitions",
                "3"));
        command.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            Matcher m = await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(
                            () -> {
                                if (!p.isAlive()) {
                                    throw new AssertionError(
                                            "kaas serve exited with " + p.exitValue() + ":\n" + Files.readString(log));
                                }
                                return LISTENING.matcher(Files.readString(log));
                            },
                            Matcher::find);
            return new BrokerProcess(p, log, Integer.parseInt(m.group(1)));
        } catch (RuntimeException | Error e) {
            p.destroyForcibly().waitFor();
            throw e;
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** kill -9: no shutdown hook, no clean close; the page cache survives, as after a process crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then SIGKILL after {@code graceMillis}: a kill that can land in the middle of a clean shutdown. */
    void stopThenKillAfter(long graceMillis) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
            kill();
        }
    }

    /** SIGTERM and wait for a clean exit. */
    void stop() throws Exception {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("kaas serve did not stop on SIGTERM:\n" + Files.readString(log));
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
