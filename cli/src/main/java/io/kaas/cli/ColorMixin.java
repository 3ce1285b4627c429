package io.kaas.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Colour and progress for a subcommand, following {@link Terminal}'s rules (terminal only, never with
 * NO_COLOR). Adds no options. Use as {@code @Mixin ColorMixin color;} then
 * {@code out.println(color.stdout("@|bold,red CORRUPT|@ " + file))}: the markup is stripped when the
 * stream shows no colour, so the same code serves terminals, pipes and tests.
 */
@Command // picocli accepts a mixin only if it is annotated; this one adds no options.
public final class ColorMixin {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    public Terminal terminal() {
        return Kaas.terminalOf(mixee);
    }

    /** picocli {@code @|style text|@} markup rendered for stdout. */
    public String stdout(String markup) {
        return render(terminal().stdoutAnsi(), markup);
    }

    /** picocli {@code @|style text|@} markup rendered for stderr. */
    public String stderr(String markup) {
        return render(terminal().stderrAnsi(), markup);
    }

    /** Whether a long scan may draw a progress bar on stderr. */
    public boolean progressOnStderr() {
        return terminal().progressOnStderr();
    }

    private static String render(Ansi ansi, String markup) {
        return ansi.string(markup);
    }
}
