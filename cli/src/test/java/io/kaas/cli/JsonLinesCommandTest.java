package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * One convention for every --json: JSON Lines. Each line of stdout must parse, alone, as one JSON object
 * (a strict parser: trailing tokens fail), and a command that reports on several things ends with
 * {"type":"summary"} carrying its exit code. Run on healthy data, on damage and on a path with no data.
 */
class JsonLinesCommandTest {
    private static final ObjectMapper STRICT =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @TempDir
    Path data;

    Path p0;
    Path log0;

    @BeforeEach
    void dataDir() throws Exception {
        p0 = LogFixture.partition(data, "t", 0, 2, 20);
        LogFixture.partition(data, "t", 1, 1, 4);
        Path c0 = Files.createDirectories(data.resolve("c/0"));
        io.kaas.storage.cleaner.CleanerScenario.generate(3, 40, 5).write(c0);
        StateJson.write(
                data.resolve("c").resolve(TopicConfig.FILE_NAME),
                new TopicConfig(null, null, null, null, "compact", null, null, null));
        log0 = p0.resolve(SegmentName.of(1, 0).logFileName());
        Files.createDirectories(data.resolve("__cluster"));
    }

    /** Commands over many things: every line an object, the last the summary with the exit code. */
    private List<List<String>> summarised() {
        String d = data.toString();
        return List.of(
                List.of("verify", "--json", d),
                List.of("recover", "--dry-run", "--json", d),
                List.of("rebuild-index", "--check", "--json", d),
                List.of("rebuild-index", "--dry-run", "--json", p0.toString()),
                List.of("compact", "--dry-run", "--json", d),
                List.of(
                        "delete-records",
                        "--dry-run",
                        "--json",
                        "--data-dir",
                        d,
                        "--topic",
                        "t",
                        "--partition",
                        "0",
                        "--offset",
                        "150"),
                List.of(
                        "dump-segment",
                        "--json",
                        log0.toString(),
                        p0.resolve(SegmentName.of(1, 0).indexFileName()).toString(),
                        p0.resolve("manifest.json").toString()),
                List.of("dump-segment", "--json", "--deep-iteration", log0.toString()),
                List.of("acl", "list", "--json", "--data-dir", d),
                List.of("user", "list", "--json", "--data-dir", d));
    }

    @Test
    void healthyDamagedAndNoDataOutputIsJsonLinesEndingInASummary() throws Exception {
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--json",
                                "--data-dir",
                                data.toString(),
                                "--principal",
                                "User:a",
                                "--operation",
                                "READ",
                                "--topic",
                                "t")
                        .exitCode())
                .isZero();
        userAdd("alice");
        for (List<String> args : summarised()) {
            assertJsonLines(args, true);
        }
        LogFixture.flipByte(log0, 70); // a bad CRC in a closed segment: damage for every tool
        for (List<String> args : summarised()) {
            assertJsonLines(args, true);
        }
        for (List<String> args : List.of(
                List.of("recover", "--json", data.resolve("nope").toString()),
                List.of("compact", "--json", "/etc"),
                List.of("rebuild-index", "--json", "/etc"),
                List.of("verify", "--json", "/etc"))) {
            KaasRun r = assertJsonLines(args, true);
            assertThat(r.exitCode()).as(args.toString()).isEqualTo(3);
        }
    }

    @Test
    void singleChangesAreOneObjectEach() throws Exception {
        String d = data.toString();
        assertJsonLines(
                List.of(
                        "acl",
                        "add",
                        "--json",
                        "--data-dir",
                        d,
                        "--principal",
                        "User:a",
                        "--operation",
                        "READ,WRITE",
                        "--topic",
                        "t"),
                true);
        assertJsonLines(List.of("acl", "remove", "--json", "--data-dir", d, "--principal", "User:a"), true);
        KaasRun add = userAdd("bob");
        assertThat(add.out().lines()).hasSize(1);
        STRICT.readTree(add.out().strip());
        KaasRun delete = KaasRun.of("user", "delete", "bob", "--json", "--data-dir", d);
        assertThat(delete.out().lines()).hasSize(1);
        assertThat(STRICT.readTree(delete.out().strip()).isObject()).isTrue();
    }

    @Test
    void everyCommandWithJsonStatesTheConventionInItsHelp() {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        List<String> missing = new ArrayList<>();
        List<CommandLine> all = new ArrayList<>();
        collect(kaas, all);
        for (CommandLine c : all) {
            if (c.getCommandSpec().findOption("--json") != null) {
                String help = c.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
                if (!help.contains("JSON Lines") || !help.contains("\"summary\"")) {
                    missing.add(c.getCommandSpec().qualifiedName());
                }
            }
        }
        assertThat(missing).isEmpty();
        assertThat(kaas.getSubcommands().get("delete-records").getCommandSpec().findOption("--json"))
                .isNotNull();
    }

    private static void collect(CommandLine c, List<CommandLine> out) {
        out.add(c);
        c.getSubcommands().values().forEach(s -> collect(s, out));
    }

    private KaasRun userAdd(String name) {
        InputStream original = System.in;
        System.setIn(new ByteArrayInputStream("pw\n".getBytes(StandardCharsets.UTF_8)));
        try {
            KaasRun r = KaasRun.of("user", "add", name, "--json", "--password-stdin", "--data-dir", data.toString());
            assertThat(r.exitCode()).as(r.err()).isZero();
            return r;
        } finally {
            System.setIn(original);
        }
    }

    private static KaasRun assertJsonLines(List<String> args, boolean summary) throws Exception {
        KaasRun r = KaasRun.of(args.toArray(String[]::new));
        assertThat(r.exitCode()).as(args + ": " + r.err()).isNotEqualTo(2).isNotEqualTo(70);
        List<String> lines = r.out().lines().toList();
        assertThat(lines).as(args + " prints something on stdout").isNotEmpty();
        JsonNode last = null;
        for (String line : lines) {
            JsonNode n;
            try {
                n = STRICT.readTree(line);
            } catch (Exception e) {
                throw new AssertionError(args + ": not one JSON object per line: " + line, e);
            }
            assertThat(n.isObject()).as(args + ": " + line).isTrue();
            last = n;
        }
        if (summary) {
            assertThat(last.path("type").asText())
                    .as(args + ": last line " + last)
                    .isEqualTo("summary");
            if (last.has("exitCode")) {
                assertThat(last.get("exitCode").asInt()).as(args.toString()).isEqualTo(r.exitCode());
            }
        }
        return r;
    }
}
