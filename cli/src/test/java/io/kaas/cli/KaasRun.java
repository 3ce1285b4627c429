package io.kaas.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One in-process {@code kaas} invocation as a user sees it: exit code, stdout, stderr. Commands' tests
 * use it to run the real command tree, e.g. {@code KaasRun.of("verify", dir.toString())}.
 */
public record KaasRun(int exitCode, String out, String err) {

    public static KaasRun of(String... args) {
        return of(Terminal.PLAIN, args);
    }

    public static KaasRun of(Terminal terminal, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Kaas.run(terminal, new PrintWriter(out), new PrintWriter(err), args);
        return new KaasRun(exitCode, out.toString(), err.toString());
    }

    /** Runs {@code args} against {@code commandLine}, a tree a test has extended with its own commands. */
    static KaasRun of(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Kaas.execute(commandLine, new PrintWriter(out), new PrintWriter(err), args);
        return new KaasRun(exitCode, out.toString(), err.toString());
    }
}
