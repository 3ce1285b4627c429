package io.kaas.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs one command as a user would, through picocli, capturing stdout, stderr and the exit code. */
record CliRun(int exit, String out, String err) {
    static CliRun run(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new CliRun(exit, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
