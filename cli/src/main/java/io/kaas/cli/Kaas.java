package io.kaas.cli;

import io.kaas.storage.ExitCodes;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code kaas} command: one binary whose subcommands share one storage engine. This class only
 * wires the tree and the conventions every subcommand gets for free (exit codes, error handling,
 * colour); each subcommand is its own class.
 *
 * <p>To add a subcommand, add its class to {@link #SUBCOMMANDS}: one line (see cli/README.md).
 */
@Command(
        name = "kaas",
        mixinStandardHelpOptions = true,
        versionProvider = KaasVersion.class,
        header = "Kafka-compatible broker and offline toolkit for its data directories.",
        description = {
            "kaas stores Kafka topics in plain segment files. 'kaas serve' runs the broker; the other "
                    + "commands read, check and repair the same files offline, from shell scripts.",
            "",
            "Data goes to stdout, diagnostics to stderr. Colour is used only on a terminal and never "
                    + "when NO_COLOR is set."
        },
        synopsisSubcommandLabel = "COMMAND")
public final class Kaas implements Runnable {
    /**
     * Every subcommand, in the order help lists them. Not in the {@code @Command} annotation: picocli
     * would build all of them for every invocation, and runbooks call {@code kaas verify} hundreds of
     * times (bench/startup.sh's targets), so {@link #main} builds only the one the arguments name.
     */
    static final List<Class<?>> SUBCOMMANDS = List.of(
            HelpCommand.class,
            // Hidden: `source <(kaas generate-completion)` gives bash the script of completions/kaas.bash.
            AutoComplete.GenerateCompletion.class,
            // One line per subcommand, alphabetical, e.g. VerifyCommand.class,
            AclCommand.class,
            AssignCommand.class,
            CatCommand.class,
            CompactCommand.class,
            DeleteRecordsCommand.class,
            DumpSegmentCommand.class,
            ExportCommand.class,
            ImportCommand.class,
            LsCommand.class,
            RebuildIndexCommand.class,
            RecoverCommand.class,
            ServeCommand.class,
            UserCommand.class,
            VerifyCommand.class);

    private final Terminal terminal;
    /** The process's stdout as bytes, for output that must be byte-exact ({@code cat}); null in-process. */
    private final OutputStream stdoutBytes;

    @Spec
    private CommandSpec spec;

    public Kaas(Terminal terminal) {
        this(terminal, null);
    }

    public Kaas(Terminal terminal, OutputStream stdoutBytes) {
        this.terminal = terminal;
        this.stdoutBytes = stdoutBytes;
    }

    /** What the streams can show; subcommands reach it through {@link ColorMixin}. */
    public Terminal terminal() {
        return terminal;
    }

    @Override
    public void run() {
        // `kaas` alone names no command: a usage error, so scripts that forgot the command fail loudly.
        throw new ParameterException(spec.commandLine(), "Missing required command");
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int exitCode = run(Terminal.detect(), System.out, out, err, args);
        out.flush();
        err.flush();
        System.exit(exitCode);
    }

    /** Runs {@code kaas args} in this JVM, as a test would: returns the exit code, never exits. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(Terminal.PLAIN, out, err, args);
    }

    /** As {@link #run(PrintWriter, PrintWriter, String...)}, with the terminal a test wants to pretend. */
    public static int run(Terminal terminal, PrintWriter out, PrintWriter err, String... args) {
        return run(terminal, null, out, err, args);
    }

    /**
     * As {@link #run(Terminal, PrintWriter, PrintWriter, String...)}; {@code stdoutBytes} (may be null) is the byte
     * stream under {@code out}, which commands whose output must be byte-exact write to ({@link #stdoutBytesOf}).
     */
    public static int run(
            Terminal terminal, OutputStream stdoutBytes, PrintWriter out, PrintWriter err, String... args) {
        if (asksForVersionOnly(args)) {
            // What scripts probe first, answered without picocli's model: ~170 classes and reflection over
            // the annotations, run interpreted, even for an empty command. KaasTest checks this prints what
            // the whole tree prints.
            for (String line : new KaasVersion().getVersion()) {
                out.println(line);
            }
            out.flush();
            return ExitCodes.OK;
        }
        return execute(newCommandLine(terminal, stdoutBytes, subcommandsFor(args)), out, err, args);
    }

    private static boolean asksForVersionOnly(String... args) {
        return args.length == 1 && (args[0].equals("-V") || args[0].equals("--version"));
    }

    /** Runs {@code args} against an already built tree (tests add commands of their own to it). */
    static int execute(CommandLine commandLine, PrintWriter out, PrintWriter err, String... args) {
        commandLine.setOut(out);
        commandLine.setErr(err);
        try {
            return commandLine.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * The whole command tree with kaas's conventions applied to every command in it. The docs generator
     * renders man pages and completion from this very tree, so they show what users get.
     */
    public static CommandLine newCommandLine(Terminal terminal) {
        return newCommandLine(terminal, SUBCOMMANDS);
    }

    /**
     * The subcommands {@code args} need: none for {@code --version}, only the named one for a command
     * (its help and errors never list its siblings), and all of them otherwise: {@code kaas},
     * {@code kaas --help}, {@code kaas help ...}, {@code generate-completion}, and a mistyped name
     * (picocli answers it with suggestions). KaasTest checks that each answers as the whole tree does.
     */
    static List<Class<?>> subcommandsFor(String... args) {
        if (asksForVersionOnly(args)) {
            return List.of();
        }
        if (args.length > 0) {
            for (Class<?> c : SUBCOMMANDS) {
                // help and generate-completion describe the whole tree, so they get it.
                boolean describesTree = c == HelpCommand.class || c == AutoComplete.GenerateCompletion.class;
                if (!describesTree && c.getAnnotation(Command.class).name().equals(args[0])) {
                    return List.of(c);
                }
            }
        }
        return SUBCOMMANDS;
    }

    static CommandLine newCommandLine(Terminal terminal, List<Class<?>> subcommands) {
        return newCommandLine(terminal, null, subcommands);
    }

    static CommandLine newCommandLine(Terminal terminal, OutputStream stdoutBytes, List<Class<?>> subcommands) {
        CommandLine commandLine = new CommandLine(new Kaas(terminal, stdoutBytes));
        for (Class<?> c : subcommands) {
            commandLine.addSubcommand(c);
        }
        commandLine.setColorScheme(CommandLine.Help.defaultColorScheme(terminal.stdoutAnsi()));
        commandLine.setExecutionExceptionHandler(new DataErrorHandler());
        commandLine.setParameterExceptionHandler(new UsageErrorHandler());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        // picocli's own command is visible by default; a man page for it would only be noise.
        CommandLine completion = commandLine.getSubcommands().get("generate-completion");
        if (completion != null) {
            completion.getCommandSpec().usageMessage().hidden(true);
        }
        applyConventions(commandLine);
        return commandLine;
    }

    /** The stdout bytes of the {@code kaas} invocation {@code command} belongs to; null when run in-process. */
    static OutputStream stdoutBytesOf(CommandSpec command) {
        return command.root().userObject() instanceof Kaas kaas ? kaas.stdoutBytes : null;
    }

    /** The terminal of the {@code kaas} invocation {@code command} belongs to. */
    static Terminal terminalOf(CommandSpec command) {
        return command.root().userObject() instanceof Kaas kaas ? kaas.terminal() : Terminal.PLAIN;
    }

    /**
     * Gives every command in the tree what cli/README.md promises of all of them, so a subcommand class
     * cannot forget it: {@code -h/--help} and {@code -V/--version}, help as wide as the terminal, the
     * exit-code list (the command's own 0 and 1, or generic ones, then the shared 2, 3 and 70), and one
     * help layout with a blank line between sections (unless the command sets its own headings).
     */
    static void applyConventions(CommandLine commandLine) {
        CommandSpec command = commandLine.getCommandSpec();
        UsageMessageSpec usage = command.usageMessage();
        usage.autoWidth(true);
        if (usage.descriptionHeading().isEmpty()) {
            usage.descriptionHeading("%n");
        }
        if (usage.parameterListHeading().isEmpty()) {
            usage.parameterListHeading("%nParameters:%n");
        }
        if (usage.optionListHeading().isEmpty()) {
            usage.optionListHeading("%nOptions:%n");
        }
        if (usage.commandListHeading().equals("Commands:%n")) {
            usage.commandListHeading("%nCommands:%n");
        }
        Map<String, String> own = usage.exitCodeList();
        usage.exitCodeListHeading("%nExit Codes:%n")
                .exitCodeList(ExitCodeList.complete(own.isEmpty() ? ExitCodeList.defaults() : own));
        if (!command.helpCommand() && command.findOption("--help") == null) {
            command.mixinStandardHelpOptions(true);
        }
        if (command.version().length == 0) {
            command.versionProvider(new KaasVersion());
        }
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            applyConventions(sub);
        }
    }
}
