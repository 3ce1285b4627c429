package io.kaas.cli.docs;

import io.kaas.cli.Kaas;
import io.kaas.cli.Terminal;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Attributes;
import org.asciidoctor.Options;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Renders the checked-in {@code man/} (troff man pages, one per command) and {@code completions/}
 * (bash, and zsh through bashcompinit) from the very command tree {@code kaas} runs. Every build's
 * {@code DocsUpToDateTest} compares {@link #render} with the checked-in files; {@link #main} rewrites
 * them, run by the cli's {@code regenerate-docs} profile ({@link #REGENERATE}).
 *
 * <p>Output is a pure function of the command tree and the project version: no dates, no generator
 * versions of the build machine, no environment (hence {@link Terminal#PLAIN} and the fixed
 * {@code docdate}), so two builds of one commit write identical bytes.
 */
public final class DocsGenerator {

    /** The directories this generator owns, relative to the repository root. */
    public static final List<String> OWNED_DIRS = List.of("man", "completions");

    /** The command that regenerates them; error messages tell people to run it. */
    public static final String REGENERATE = "mvn -q -B package -pl cli -am -Pregenerate-docs -DskipTests";

    private DocsGenerator() {}

    /** {@code DocsGenerator REPO_ROOT}: rewrites REPO_ROOT/man and REPO_ROOT/completions. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: DocsGenerator REPO_ROOT");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        // Quiet when nothing changed, like the rest of a `mvn -q` build; otherwise say what to commit.
        for (String change : write(root, render())) {
            System.out.println("kaas docs: " + change + " (commit it)");
        }
    }

    /** Every generated file: path relative to the repository root → content. Sorted for stable output. */
    public static Map<String, String> render() {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        Map<String, String> files = new TreeMap<>();
        try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
            for (CommandSpec command : commandTree(kaas.getCommandSpec())) {
                String name = command.qualifiedName("-");
                files.put("man/" + name + ".1", endWithNewline(troff(asciidoctor, asciidoc(command))));
            }
        }
        String bash = AutoComplete.bash("kaas", kaas);
        files.put("completions/kaas.bash", bash);
        files.put("completions/_kaas", zsh(bash));
        return files;
    }

    /** Text files end with a newline, or git and diff complain. */
    static String endWithNewline(String text) {
        return text.endsWith("\n") ? text : text + "\n";
    }

    /**
     * Writes {@code files} and deletes any other file in the owned directories (a removed command's
     * page). Returns what changed, e.g. {@code "updated man/kaas.1"}.
     */
    static List<String> write(Path root, Map<String, String> files) throws IOException {
        List<String> changes = new ArrayList<>();
        for (String dir : OWNED_DIRS) {
            Files.createDirectories(root.resolve(dir));
            for (Path existing : listFiles(root.resolve(dir))) {
                String relative = dir + "/" + existing.getFileName();
                if (!files.containsKey(relative)) {
                    Files.delete(existing);
                    changes.add("deleted " + relative);
                }
            }
        }
        for (Map.Entry<String, String> file : files.entrySet()) {
            Path path = root.resolve(file.getKey());
            byte[] bytes = file.getValue().getBytes(StandardCharsets.UTF_8);
            // Rewriting identical bytes would only churn mtimes (and make `make`-style tools rebuild).
            if (!Files.exists(path)) {
                Files.write(path, bytes);
                changes.add("created " + file.getKey());
            } else if (!Arrays.equals(Files.readAllBytes(path), bytes)) {
                Files.write(path, bytes);
                changes.add("updated " + file.getKey());
            }
        }
        return changes;
    }

    /** The regular files directly in {@code dir}, or none when it does not exist. */
    static List<Path> listFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** The command and all its visible subcommands, depth first. */
    static List<CommandSpec> commandTree(CommandSpec root) {
        List<CommandSpec> tree = new ArrayList<>();
        tree.add(root);
        for (CommandLine sub : root.subcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            // Aliases map to the same CommandLine: keep each command once, under its own name.
            if (!spec.usageMessage().hidden()
                    && !tree.contains(spec)
                    && sub.getCommandName().equals(spec.name())) {
                tree.addAll(commandTree(spec));
            }
        }
        return tree;
    }

    static String asciidoc(CommandSpec command) {
        // The help's "Exit Codes:" heading would become "EXIT CODES:" in the man page; man sections have no colon.
        command.usageMessage().exitCodeListHeading("Exit Codes%n");
        StringWriter adoc = new StringWriter();
        try (PrintWriter writer = new PrintWriter(adoc)) {
            ManPageGenerator.writeSingleManPage(writer, command);
        }
        return adoc.toString();
    }

    static String troff(Asciidoctor asciidoctor, String asciidoc) {
        Attributes attributes = Attributes.builder()
                // A fixed date: asciidoctor would otherwise stamp today's into the page header.
                .attribute("docdate", "")
                .attribute("docyear", "")
                .attribute("revdate", "")
                .attribute("reproducible", "")
                .build();
        Options options = Options.builder()
                .backend("manpage")
                .standalone(true)
                .safe(org.asciidoctor.SafeMode.SAFE)
                .attributes(attributes)
                .build();
        return asciidoctor.convert(asciidoc, options);
    }

    /**
     * zsh runs the bash script through its bash-compatibility layer (bashcompinit, which the script
     * loads itself). The file works both ways zsh users install completions: autoloaded from a
     * directory on {@code fpath} (the {@code #compdef} line), or sourced from ~/.zshrc after compinit.
     */
    static String zsh(String bash) {
        return "#compdef kaas\n"
                + "# zsh completion for kaas, generated by the kaas build (cli/src/test/.../DocsGenerator.java); do not edit.\n"
                + "# Install: put this file in a directory on $fpath before compinit runs, or `source` it from ~/.zshrc\n"
                + "# after `autoload -U +X compinit && compinit`.\n"
                + "\n"
                + bash
                + "\n"
                + "# When compinit autoloads this file as the function _kaas on the first TAB, the `complete` call above\n"
                + "# rebinds kaas to bash-style completion for the TABs after it; complete this first one the same way.\n"
                + "if [[ -n ${ZSH_VERSION:-} && -n ${compstate[context]:-} ]]; then\n"
                + "  _bash_complete -o default -F _complete_kaas\n"
                + "fi\n";
    }
}
