package io.kaas.cluster.etcd;

import io.kaas.storage.testing.ExternalTool;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A real etcd (Debian's {@code etcd-server}, installed by {@code .ci/run}) on random loopback ports with
 * a temp data dir of its own: jetcd's test helpers need Docker, which CI does not have. As a JUnit
 * extension it hands every test of the JVM one shared server (started on first use, stopped with the
 * root context); tests keep apart by cluster id, which is the store's key prefix.
 */
public final class EtcdServer implements AutoCloseable, ExtensionContext.Store.CloseableResource {
    private final Path dataDir;
    private final int clientPort;
    private final int peerPort;
    private Process process;

    private EtcdServer(Path dataDir, int clientPort, int peerPort) {
        this.dataDir = dataDir;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
    }

    /** Starts etcd and waits until it reports healthy. */
    public static EtcdServer start() throws IOException {
        EtcdServer s = new EtcdServer(Files.createTempDirectory("kaas-etcd"), freePort(), freePort());
        s.launch();
        return s;
    }

    private void launch() throws IOException {
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        process = new ProcessBuilder(List.of(
                        "etcd",
                        "--name",
                        "kaas-test",
                        "--data-dir",
                        dataDir.resolve("data").toString(),
                        "--listen-client-urls",
                        client,
                        "--advertise-client-urls",
                        client,
                        "--listen-peer-urls",
                        peer,
                        "--initial-advertise-peer-urls",
                        peer,
                        "--initial-cluster",
                        "kaas-test=" + peer,
                        "--log-level",
                        "warn"))
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("etcd.log").toFile())
                .start();
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        Awaitility.await("etcd healthy on " + client)
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("etcd exited " + process.exitValue() + ": "
                                + Files.readString(dataDir.resolve("etcd.log")));
                    }
                    try {
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(URI.create(client + "/health"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        return r.statusCode() == 200 && r.body().contains("true");
                    } catch (IOException e) {
                        return false;
                    }
                });
    }

    /** {@code 127.0.0.1:port}, what {@code --coordinator etcd://} takes. */
    public String endpoint() {
        return "127.0.0.1:" + clientPort;
    }

    /** Kills etcd (its data stays) — the cluster loses its store. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Starts it again on the same ports and data. */
    public void restart() throws IOException, InterruptedException {
        stop();
        launch();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stop();
        try (Stream<Path> all = Files.walk(dataDir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * {@code @ExtendWith(EtcdServer.Shared.class)}: an {@link EtcdServer} parameter, one server per test JVM.
     * Each test is skipped, saying why, where there is no {@code etcd} to start ({@link ExternalTool#ETCD}):
     * per test, not per class, so that the reports list every skipped test.
     */
    public static final class Shared implements BeforeEachCallback, ParameterResolver {
        @Override
        public void beforeEach(ExtensionContext c) {
            ExternalTool.ETCD.assumePresent();
        }

        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
            return p.getParameter().getType() == EtcdServer.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext c) {
            return c.getRoot()
                    .getStore(ExtensionContext.Namespace.create(EtcdServer.class))
                    .getOrComputeIfAbsent(
                            "etcd",
                            k -> {
                                try {
                                    return start();
                                } catch (IOException e) {
                                    throw new IllegalStateException("cannot start etcd", e);
                                }
                            },
                            EtcdServer.class);
        }
    }
}
