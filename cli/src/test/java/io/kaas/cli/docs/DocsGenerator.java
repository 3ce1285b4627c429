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
 * (bash, and zsh through bashcompinit) from the very command tree {@code kaas} runs. The build runs
 * {@link #main} at the package phase; {@code DocsUpToDateTest} compares {@link #render} with the
 * checked-in files.
 *
 * <p>Output is a pure function of the command tree and the project version: no dates, no generator
 * versions of the build machine, no environment (hence {@link Terminal#PLAIN} and the fixed
 * {@code docdate}), so two builds of one commit write identical bytes.
 */
public final class DocsGenerator {

    /** The directories this generator owns, relative to the repository root. */
    public static final List<String> OWNED_DIRS = List.of("man", "completions");

    /** The command that regenerates them; error messages tell people to run it. */
    public static final String REGENERATE = "mvn -q -B package -pl cli -am -DskipTests";

    private DocsGenerator() {
    }

    /** {@code DocsGenerator REPO_ROOT}: rewrites REPO_ROOT/man and REPO_ROOT/completions. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: DocsGenerator REPO_ROOT");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        Map<String, String> files = render();
        write(root, files);
        System.out.println("kaas docs: wrote " + files.size() + " files under " + root.resolve("man") + " and " + root.resolve("completions"));
    }

    /** Every generated file: path relative to the repository root → content. Sorted for stable output. */
    public static Map<String, String> render() {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        Map<String, String> files = new TreeMap<>();
        try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
            for (CommandSpec command : commandTree(kaas.getCommandSpec())) {
                String name = command.qualifiedName("-");
                files.put("man/" + name + ".1", troff(asciidoctor, asciidoc(command)));
            }
        }
        String bash = AutoComplete.bash("kaas", kaas);
        files.put("completions/kaas.bash", bash);
        files.put("completions/_kaas", zsh(bash));
        return files;
    }

    /** Writes {@code files} and deletes any other file in the owned directories (a removed command's page). */
    static void write(Path root, Map<String, String> files) throws IOException {
        for (String dir : OWNED_DIRS) {
            Files.createDirectories(root.resolve(dir));
            for (Path existing : listFiles(root.resolve(dir))) {
                String relative = dir + "/" + existing.getFileName();
                if (!files.containsKey(relative)) {
                    Files.delete(existing);
                }
            }
        }
        for (Map.Entry<String, String> file : files.entrySet()) {
            Path path = root.resolve(file.getKey());
            byte[] bytes = file.getValue().getBytes(StandardCharsets.UTF_8);
            // Rewriting identical bytes would only churn mtimes (and make `make`-style tools rebuild).
            if (!Files.exists(path) || !java.util.Arrays.equals(Files.readAllBytes(path), bytes)) {
                Files.write(path, bytes);
            }
        }
        Path completion = root.resolve("completions/kaas.bash");
        completion.toFile().setExecutable(false);
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
            if (!spec.usageMessage().hidden() && !tree.contains(spec) && sub.getCommandName().equals(spec.name())) {
                tree.addAll(commandTree(spec));
            }
        }
        return tree;
    }

    static String asciidoc(CommandSpec command) {
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
        Options options = Options.builder().backend("manpage").standalone(true).safe(org.asciidoctor.SafeMode.SAFE)
                .attributes(attributes).build();
        return asciidoctor.convert(asciidoc, options);
    }

    /**
     * zsh runs the bash script through its bash-compatibility layer. Sourced from ~/.zshrc after
     * {@code compinit}, not autoloaded from fpath: an autoloaded file would have to complete on its first
     * call, which the bash script cannot.
     */
    static String zsh(String bash) {
        return "# zsh completion for kaas. Generated by the kaas build from completions/kaas.bash; do not edit.\n"
                + "# Use: add `autoload -U +X compinit && compinit` and then `source /path/to/completions/_kaas` to ~/.zshrc.\n"
                + "autoload -U +X bashcompinit && bashcompinit\n"
                + "\n"
                + bash;
    }
}
