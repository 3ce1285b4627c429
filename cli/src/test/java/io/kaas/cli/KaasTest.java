package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.ExitCodes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KaasTest {

    private static final String ESC = "\u001b[";

    @Test
    void helpListsCommandsAndEveryExitCode() {
        KaasRun run = KaasRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).contains("Usage: kaas [-hV] COMMAND", "Commands:", "help ", "Exit Codes:");
        ExitCodeList.descriptions()
                .forEach((code, description) ->
                        assertThat(run.out()).containsPattern("(?m)^  " + code + " +" + description.substring(0, 20)));
    }

    @Test
    void everyCommandInTheTreeHasHelpVersionAndTheExitCodeList() {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        assertThat(kaas.getSubcommands()).containsKey("help");
        for (CommandLine command : kaas.getSubcommands().values()) {
            String usage = command.getUsageMessage();
            assertThat(usage).as(command.getCommandName()).contains("Exit Codes:", "  3    Data could not be read");
            // Each command words its own 0 and 1; 2, 3 and 70 are the shared wording, appended once.
            assertThat(command.getCommandSpec().usageMessage().exitCodeList())
                    .as(command.getCommandName())
                    .containsKeys("0", "1")
                    .containsAllEntriesOf(ExitCodeList.complete(Map.of()));
            assertThat(command.getCommandSpec().usageMessage().exitCodeList().keySet())
                    .as(command.getCommandName())
                    .containsExactly("0", "1", "2", "3", "70");
            assertThat(command.getCommandSpec().findOption("--help"))
                    .as(command.getCommandName())
                    .isNotNull();
        }
    }

    @Test
    void helpCommandPrintsTheHelpOfACommand() {
        KaasRun run = KaasRun.of("help", "help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: kaas help");
    }

    @Test
    void versionPrintsTheMavenProjectVersion() {
        String projectVersion = System.getProperty("kaas.project.version");
        assertThat(projectVersion).as("surefire passes the pom's version").isNotBlank();

        KaasRun run = KaasRun.of("--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo("kaas " + projectVersion + System.lineSeparator());
        assertThat(run.err()).isEmpty();
    }

    @Test
    void unknownOptionIsAUsageErrorOnStderrOnly() {
        KaasRun run = KaasRun.of("--bogus");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("kaas: Unknown option: '--bogus'", "Try 'kaas --help'");
        // One line naming the mistake, not the whole usage text.
        assertThat(run.err()).doesNotContain("Exit Codes:");
    }

    @Test
    void misspelledCommandGetsASuggestion() {
        KaasRun run = KaasRun.of("hepl");

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("Unmatched argument", "'hepl'", "help");
    }

    @Test
    void noCommandIsAUsageError() {
        KaasRun run = KaasRun.of();

        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("kaas: Missing required command");
    }

    @Test
    void helpIsColouredOnATerminal() {
        // The control for the NO_COLOR test: without it, that test could pass on an uncoloured help.
        KaasRun run = KaasRun.of(Terminal.decide(Map.of(), true, true), "--help");

        assertThat(run.out()).contains(ESC);
    }

    @Test
    void noColorTurnsColourOffEvenOnATerminal() {
        Terminal terminal = Terminal.decide(Map.of("NO_COLOR", "1"), true, true);

        KaasRun help = KaasRun.of(terminal, "--help");
        KaasRun usageError = KaasRun.of(terminal, "--bogus");

        assertThat(help.out()).contains("Usage: kaas").doesNotContain(ESC);
        assertThat(usageError.err()).contains("Unknown option").doesNotContain(ESC);
    }

    @Test
    void noColourWhenOutputIsNotATerminal() {
        KaasRun run = KaasRun.of(Terminal.decide(Map.of(), false, false), "--help");

        assertThat(run.out()).contains("Usage: kaas").doesNotContain(ESC);
    }

    @Test
    void theTreeBuiltForTheArgumentsAnswersAsTheWholeTree() {
        List<String[]> cases = new java.util.ArrayList<>(List.of(
                new String[] {"--version"},
                new String[] {"-V"},
                new String[] {"--help"},
                new String[] {},
                new String[] {"verifx"},
                new String[] {"help", "verify"},
                new String[] {"verify", "--no-such-option"},
                new String[] {"acl", "add", "--help"},
                new String[] {"generate-completion"}));
        for (CommandLine sub :
                Kaas.newCommandLine(Terminal.PLAIN).getSubcommands().values()) {
            cases.add(new String[] {sub.getCommandName(), "--help"});
        }
        for (String[] args : cases) {
            KaasRun whole = KaasRun.of(Kaas.newCommandLine(Terminal.PLAIN), args);
            KaasRun built = KaasRun.of(Terminal.PLAIN, args);
            assertThat(built).as(String.join(" ", args)).isEqualTo(whole);
        }
        assertThat(Kaas.subcommandsFor("--version")).isEmpty();
        assertThat(Kaas.subcommandsFor("verify", "x")).containsExactly(VerifyCommand.class);
        assertThat(Kaas.subcommandsFor("help", "verify")).isEqualTo(Kaas.SUBCOMMANDS);
    }
}
