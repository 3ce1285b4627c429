package io.kaas.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kaas.cli.KaasRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checked-in man/ and completions/ must be what the build generates from today's command tree:
 * a stale man page documents options that no longer exist.
 */
class DocsUpToDateTest {

    private static final Path REPO_ROOT =
            Path.of(System.getProperty("kaas.repo.root", "..")).toAbsolutePath().normalize();

    /** Rendered once: each rendering starts JRuby for asciidoctor, which takes seconds. */
    private static Map<String, String> rendered;

    @BeforeAll
    static void render() {
        rendered = DocsGenerator.render();
    }

    @Test
    void checkedInManPagesAndCompletionsAreUpToDate(@TempDir Path generated) throws IOException {
        DocsGenerator.write(generated, rendered);

        List<String> problems = new ArrayList<>();
        for (String dir : DocsGenerator.OWNED_DIRS) {
            TreeSet<String> names = new TreeSet<>();
            DocsGenerator.listFiles(generated.resolve(dir))
                    .forEach(p -> names.add(p.getFileName().toString()));
            DocsGenerator.listFiles(REPO_ROOT.resolve(dir))
                    .forEach(p -> names.add(p.getFileName().toString()));
            for (String name : names) {
                Path fresh = generated.resolve(dir).resolve(name);
                Path checkedIn = REPO_ROOT.resolve(dir).resolve(name);
                if (!Files.exists(checkedIn)) {
                    problems.add(dir + "/" + name + " is missing");
                } else if (!Files.exists(fresh)) {
                    problems.add(dir + "/" + name + " is no longer generated (a removed command?)");
                } else if (!Files.readString(fresh, StandardCharsets.UTF_8)
                        .equals(Files.readString(checkedIn, StandardCharsets.UTF_8))) {
                    problems.add(dir + "/" + name + " differs from what the build generates");
                }
            }
        }
        if (!problems.isEmpty()) {
            fail("man/ and completions/ are stale: run `" + DocsGenerator.REGENERATE + "` in " + REPO_ROOT
                    + " and commit man/ and completions/.\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    void generateCompletionPrintsTheCheckedInBashScript() {
        KaasRun run = KaasRun.of("generate-completion");

        assertThat(run.exitCode()).isZero();
        // picocli prints the script with println: one blank line more at the end, harmless to bash.
        assertThat(run.out().strip())
                .isEqualTo(rendered.get("completions/kaas.bash").strip());
    }

    @Test
    void noBuildDateInGeneratedFiles() {
        // asciidoctor stamps today's date into a man page unless told otherwise: that would make every
        // build on a new day "change" man/ and fail the test above.
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        String todayLocal = LocalDate.now().toString();
        rendered.forEach((file, content) ->
                assertThat(content).as(file).doesNotContain(today).doesNotContain(todayLocal));
    }

    @Test
    void everyCommandHasAManPageAndTheCompletionKnowsIt() {
        Map<String, String> files = rendered;

        assertThat(files).containsKeys("man/kaas.1", "man/kaas-help.1", "completions/kaas.bash", "completions/_kaas");
        assertThat(files.get("man/kaas.1")).contains(".TH \"KAAS\" \"1\"", "EXIT CODES", "Data could not be read");
        assertThat(files.get("completions/kaas.bash")).contains("complete -F", "help");
        assertThat(files.get("completions/_kaas")).contains("bashcompinit");
    }
}
