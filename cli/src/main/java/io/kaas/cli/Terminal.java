package io.kaas.cli;

import java.util.Map;
import org.fusesource.jansi.AnsiConsole;
import org.fusesource.jansi.AnsiType;
import picocli.CommandLine.Help.Ansi;

/**
 * What the streams {@code kaas} writes to can show: colour only when the stream is a terminal and the
 * user has not set {@code NO_COLOR} (https://no-color.org) or {@code TERM=dumb}; progress bars only when
 * stderr is a terminal. Decided once at start-up and passed down, so tests can choose any combination.
 *
 * @param stdoutIsTerminal stdout is a terminal (not a pipe or file)
 * @param stderrIsTerminal stderr is a terminal
 * @param colourAllowed    the environment allows colour at all
 */
public record Terminal(boolean stdoutIsTerminal, boolean stderrIsTerminal, boolean colourAllowed) {

    /** Neither stream is a terminal: what tests and pipes see. */
    public static final Terminal PLAIN = new Terminal(false, false, false);

    /** The decision for this process: jansi tells whether each stream is a terminal. */
    public static Terminal detect() {
        return decide(System.getenv(), isTerminal(true), isTerminal(false));
    }

    /** The rules, apart from the probing, so they can be tested. */
    public static Terminal decide(Map<String, String> env, boolean stdoutIsTerminal, boolean stderrIsTerminal) {
        String noColor = env.get("NO_COLOR");
        boolean colourAllowed = (noColor == null || noColor.isEmpty()) && !"dumb".equals(env.get("TERM"));
        return new Terminal(stdoutIsTerminal, stderrIsTerminal, colourAllowed);
    }

    public boolean colourOnStdout() {
        return colourAllowed && stdoutIsTerminal;
    }

    public boolean colourOnStderr() {
        return colourAllowed && stderrIsTerminal;
    }

    /** Whether a long scan may draw a progress bar on stderr (it would garble a log file). */
    public boolean progressOnStderr() {
        return stderrIsTerminal;
    }

    public Ansi stdoutAnsi() {
        return colourOnStdout() ? Ansi.ON : Ansi.OFF;
    }

    public Ansi stderrAnsi() {
        return colourOnStderr() ? Ansi.ON : Ansi.OFF;
    }

    private static boolean isTerminal(boolean stdout) {
        try {
            AnsiType type = stdout ? AnsiConsole.out().getType() : AnsiConsole.err().getType();
            return type != AnsiType.Redirected && type != AnsiType.Unsupported;
        } catch (RuntimeException | LinkageError e) {
            // jansi could not load its native isatty (e.g. noexec /tmp): plain output is always safe.
            return false;
        }
    }
}
