package io.kaas.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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

    /** The decision for this process: whether stdout and stderr are terminals, and the environment. */
    public static Terminal detect() {
        return decide(System.getenv(), isTerminal(1), isTerminal(2));
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

    /**
     * Whether file descriptor {@code fd} (1 stdout, 2 stderr) is a terminal. On Linux its
     * {@code /proc/self/fd} link names the device; elsewhere {@link System#console()} (stdin and stdout
     * both terminals) answers for both. Not jansi: it extracts its native isatty into /tmp at every
     * start, which cost each run milliseconds and left a file behind per run of a runbook's loop.
     */
    private static boolean isTerminal(int fd) {
        try {
            String device =
                    Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return System.console() != null;
        }
    }
}
