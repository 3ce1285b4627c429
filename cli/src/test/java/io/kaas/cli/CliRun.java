package io.kaas.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * Runs one subcommand as a user would: through the real {@code kaas} tree ({@link Kaas#run}), so the
 * error handlers and conventions apply, capturing stdout, stderr and the exit code.
 */
record CliRun(int exit, String out, String err) {
    /** {@code kaas <name of command> args...}; {@code command} only names which subcommand. */
    static CliRun run(Object command, String... args) {
        String name =
                command.getClass().getAnnotation(CommandLine.Command.class).name();
        String[] all = new String[args.length + 1];
        all[0] = name;
        System.arraycopy(args, 0, all, 1, args.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Kaas.run(new PrintWriter(out, true), new PrintWriter(err, true), all);
        return new CliRun(exit, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
