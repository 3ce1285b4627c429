package io.kaas.cli.migration;

import io.kaas.cli.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * An Apache Kafka 4.4 broker+controller (KRaft combined mode, node 1) in a child JVM on ephemeral ports, its log
 * dir formatted by Apache's own {@code kafka.tools.StorageTool format --standalone} (the config of bench/lib.sh's
 * {@code apache_server_properties}). Its output goes to a file beside the log dir.
 */
final class ApacheKafkaProcess implements AutoCloseable {
    private final Path logDir;
    private final int port;
    private final Process process;

    private ApacheKafkaProcess(Path logDir, int port, Process process) {
        this.logDir = logDir;
        this.port = port;
        this.process = process;
    }

    /** Formats {@code logDir} (when {@code format}) and starts Apache on it; returns once it answers an Admin. */
    static ApacheKafkaProcess start(Path work, Path logDir, boolean format) throws Exception {
        return start(work, logDir, format, freePort());
    }

    /**
     * Starts Apache with its controller listener on {@code controller}: a log dir formatted elsewhere (kaas export)
     * records the standalone voter's endpoint, which the controller listener must match.
     */
    static ApacheKafkaProcess start(Path work, Path logDir, boolean format, int controller) throws Exception {
        int port = freePort();
        Path props = work.resolve("server-" + port + ".properties");
        Files.writeString(
                props,
                String.join(
                                "\n",
                                List.of(
                                        "process.roles=broker,controller",
                                        "node.id=1",
                                        "controller.quorum.bootstrap.servers=127.0.0.1:" + controller,
                                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:"
                                                + controller,
                                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                                        "controller.listener.names=CONTROLLER",
                                        "inter.broker.listener.name=PLAINTEXT",
                                        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                                        "log.dirs=" + logDir,
                                        "offsets.topic.replication.factor=1",
                                        "offsets.topic.num.partitions=50",
                                        "transaction.state.log.replication.factor=1",
                                        "transaction.state.log.min.isr=1",
                                        "share.coordinator.state.topic.replication.factor=1",
                                        "share.coordinator.state.topic.min.isr=1",
                                        "group.initial.rebalance.delay.ms=0"))
                        + "\n");
        if (format) {
            Process f = java(
                    work.resolve("apache-format.out"),
                    "kafka.tools.StorageTool",
                    "format",
                    "-t",
                    "q1Sh-9_ISia_zwGINzRvyQ",
                    "-c",
                    props.toString(),
                    "--standalone");
            if (!f.waitFor(120, TimeUnit.SECONDS) || f.exitValue() != 0) {
                f.destroyForcibly();
                throw new IllegalStateException(
                        "kafka-storage format failed: " + Files.readString(work.resolve("apache-format.out")));
            }
        }
        Process p = java(work.resolve("apache-" + port + ".out"), "kafka.Kafka", props.toString());
        ApacheKafkaProcess apache = new ApacheKafkaProcess(logDir, port, p);
        apache.awaitReady(work.resolve("apache-" + port + ".out"));
        return apache;
    }

    private static Process java(Path output, String mainClass, String... args) throws IOException {
        List<String> cmd = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                ChildJvm.classpath(),
                mainClass));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }

    private void awaitReady(Path output) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Apache Kafka exited: " + Files.readString(output));
            }
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException(
                            "Apache Kafka did not answer in 120 s: " + Files.readString(output), e);
                }
            }
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    Path logDir() {
        return logDir;
    }

    Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A clean shutdown (SIGTERM: Apache's controlled shutdown), awaited. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
