package io.kaas.storage.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The programs outside the JVM that some integration tests run, each with the package that
 * provides it (Debian's, or npm's where Debian has none): the one place that says whether a tool is here and, when it is not, why a test skips.
 * A test calls {@link #assumePresent()} before it needs the tool; where the tool is missing the test
 * is skipped with {@link #reason()}. {@code .ci/run} installs every package listed here and fails the
 * run if any test was still skipped for one (it looks for {@link #SKIP_MARKER} in the reports), so a
 * broken install cannot pass as a green build. The whole suite runs on Debian 12 with these packages.
 *
 * <p>Stateless: each call probes again (a PATH lookup, or one short {@code python3 -c import}); no
 * thread of its own.
 */
public enum ExternalTool {
    /** A real etcd for the tests over several brokers (jetcd's own test helpers need Docker). */
    ETCD("etcd on PATH", "etcd-server", () -> onPath("etcd")),
    /** A librdkafka client driving the broker next to kafka-clients. */
    KCAT("kcat on PATH", "kcat", () -> onPath("kcat")),
    /** {@code ss} shows the kernel buffer sizes of the broker's sockets. */
    SS("ss on PATH", "iproute2", () -> onPath("ss")),
    /** librdkafka's transactional producer, run by Debian's python3. */
    PYTHON3_CONFLUENT_KAFKA(
            "/usr/bin/python3 with confluent_kafka", "python3-confluent-kafka", () -> imports("confluent_kafka")),
    /** The Prometheus project's own exposition parsers, run by Debian's python3. */
    PYTHON3_PROMETHEUS_CLIENT(
            "/usr/bin/python3 with prometheus_client", "python3-prometheus-client", () -> imports("prometheus_client")),
    /** KafkaJS, a Kafka client written from scratch in JavaScript (no librdkafka), run by Node.js. */
    KAFKAJS(
            "node with kafkajs in " + nodeModules(),
            "npm package kafkajs 2.2.4",
            () -> onPath("node") && Files.isDirectory(nodeModules().resolve("kafkajs")));

    /**
     * Debian's interpreter, where Debian's python3-* packages install their modules (not a pyenv or venv
     * python3 that may come first on the PATH).
     */
    public static final Path DEBIAN_PYTHON = Path.of("/usr/bin/python3");

    /**
     * Where {@code .ci/run} installs the npm packages the tests use ({@code KAAS_NODE_MODULES} overrides it);
     * a test runs {@code node} with {@code NODE_PATH} set to it.
     */
    public static Path nodeModules() {
        String set = System.getenv("KAAS_NODE_MODULES");
        return set != null
                ? Path.of(set)
                : Path.of(System.getProperty("user.home"), ".cache/kaas-test-npm/node_modules");
    }

    /** Ends every {@link #reason()}: {@code .ci/run} finds skips for a missing tool by it. */
    public static final String SKIP_MARKER = "which .ci/run installs)";

    private final String needs;
    private final String installedAs;
    private final BooleanSupplier probe;

    ExternalTool(String needs, String installedAs, BooleanSupplier probe) {
        this.needs = needs;
        this.installedAs = installedAs.startsWith("npm ") ? installedAs : "Debian package " + installedAs;
        this.probe = probe;
    }

    /** Whether the tool can run here now. */
    public boolean present() {
        return probe.getAsBoolean();
    }

    /** Why a test skips without it, e.g. "needs etcd on PATH (Debian package etcd-server, which .ci/run installs)". */
    public String reason() {
        return "needs " + needs + " (" + installedAs + ", " + SKIP_MARKER;
    }

    /** Skips the calling test (or the class, from a before-all) with {@link #reason()} when the tool is missing. */
    public void assumePresent() {
        Assumptions.assumeTrue(present(), this::reason);
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    private static boolean imports(String module) {
        if (!Files.isExecutable(DEBIAN_PYTHON)) {
            return false;
        }
        try {
            Process p = new ProcessBuilder(DEBIAN_PYTHON.toString(), "-c", "import " + module)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
