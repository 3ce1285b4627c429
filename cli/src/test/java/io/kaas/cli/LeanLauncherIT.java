package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/kaas in the checkout runs offline commands on lib/offline.classpath: no class of the broker's
 * network and cluster libraries is loaded and none of their jars (nor the broker's) is on the class path,
 * so none is opened; a command that names a coordination store gets lib/broker.classpath too.
 */
class LeanLauncherIT {
    /** The jar names and class packages offline commands must not touch. */
    private static final List<String> FORBIDDEN_JARS =
            List.of("kaas-broker", "netty-", "grpc-", "jetcd-", "vertx-", "kubernetes-", "prometheus-");

    private static final Pattern FORBIDDEN_CLASS = Pattern.compile(
            "^\\S*\\[class,load\\s*\\] (io\\.netty|io\\.grpc|io\\.etcd"
                    + "|io\\.vertx|io\\.fabric8|io\\.kaas\\.broker\\.)\\S*",
            Pattern.MULTILINE);
    private static final Pattern CLASS_PATH =
            Pattern.compile("^\\s*java\\.class\\.path = (.*(?:\\n {8}\\S.*)*)", Pattern.MULTILINE);

    private final Path root = Path.of(System.getProperty("kaas.repo.root"));

    @Test
    void theOfflineClassPathNamesNoneOfTheBrokersJars() throws IOException {
        String offline = Files.readString(root.resolve("cli/target/lib/offline.classpath"));
        assertThat(offline)
                .contains("lib/kaas-core-storage-", "lib/kaas-recovery-", "lib/kaas-inspect-", "lib/picocli-");
        for (String jar : FORBIDDEN_JARS) {
            assertThat(offline).as("lib/offline.classpath").doesNotContain("lib/" + jar);
        }
        assertThat(Files.readString(root.resolve("cli/target/lib/broker.classpath")))
                .contains("lib/kaas-broker-", "lib/netty-handler-", "lib/jetcd-core-", "lib/kubernetes-client-");
    }

    @Test
    void offlineCommandsLoadNoBrokerClass(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Path training = copy(root.resolve("cli/src/cds/training"), dir.resolve("training"));
        Path segment;
        try (var files = Files.list(training.resolve("training/0"))) {
            segment =
                    files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        List<List<String>> commands = List.of(
                List.of("--version"),
                List.of("--help"),
                List.of("help", "serve"),
                List.of("verify", training.toString()),
                List.of("dump-segment", segment.toString()),
                List.of("recover", "--dry-run", training.toString()),
                List.of("user", "add", "alice", "--data-dir", data.toString(), "--password-stdin"),
                List.of("user", "list", "--data-dir", data.toString()),
                List.of(
                        "acl",
                        "add",
                        "--data-dir",
                        data.toString(),
                        "--principal",
                        "User:alice",
                        "--operation",
                        "read",
                        "--topic",
                        "orders"),
                List.of("acl", "list", "--data-dir", data.toString()),
                List.of("assign", "--help"));
        for (List<String> command : commands) {
            Run run = kaas(command, "-Xlog:class+load=info -XshowSettings:properties");
            assertThat(run.exitCode).as("%s%n%s", command, run.output).isZero();
            Matcher forbidden = FORBIDDEN_CLASS.matcher(run.output);
            assertThat(forbidden.find())
                    .as("kaas %s loaded %s", command, forbidden.find(0) ? forbidden.group() : "")
                    .isFalse();
            String classPath = classPath(run.output);
            assertThat(classPath).as("kaas %s", command).contains("kaas-cli.jar");
            for (String jar : FORBIDDEN_JARS) {
                assertThat(classPath).as("kaas %s's class path", command).doesNotContain("/" + jar);
            }
        }
    }

    /**
     * A plain {@code kaas verify} reads every state file of the partition (manifest, checkpoint, snapshots, the
     * topic's config and id) through core-storage's streaming reader: jackson-databind's set-up was most of its
     * start ({@code StateJson}).
     */
    @Test
    void verifyLoadsNoJacksonDatabind(@TempDir Path dir) throws Exception {
        Path training = copy(root.resolve("cli/src/cds/training"), dir.resolve("training"));
        Run run = kaas(List.of("verify", training.toString()), "-Xlog:class+load=info");
        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(run.output)
                .contains("verified 1 partition(s)", "io.kaas.storage.format.PlainRecordReader")
                .doesNotContainPattern("\\[class,load\\s*\\] com\\.fasterxml\\.jackson\\.databind\\.");
    }

    @Test
    void aCommandNamingACoordinationStoreGetsTheBrokersJars() throws Exception {
        Run run = kaas(
                List.of("recover", "--coordinator", "etcd://127.0.0.1:2379", "--help"), "-XshowSettings:properties");
        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(classPath(run.output)).contains("/kaas-broker-", "/jetcd-core-", "/netty-handler-");
    }

    /** {@code from}'s tree under {@code to}: recover's dry run still takes the partition's lock file. */
    private static Path copy(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
        return to;
    }

    private static String classPath(String output) {
        Matcher m = CLASS_PATH.matcher(output);
        assertThat(m.find())
                .as("-XshowSettings:properties printed java.class.path:%n%s", output)
                .isTrue();
        return m.group(1);
    }

    private record Run(int exitCode, String output) {}

    private Run kaas(List<String> args, String javaOpts) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/kaas").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("KAAS_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("KAAS_JAVA_OPTS", javaOpts);
        Process p = pb.start();
        p.getOutputStream().write("S3cret-pass\n".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }
}
