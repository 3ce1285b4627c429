package io.kaas.cli;

import picocli.CommandLine.Option;

/** {@code --json}: every inspecting command can report as JSON for scripts instead of text for people. */
public final class JsonOutputMixin {

    @Option(names = "--json", description = "Print the report as JSON on stdout instead of text.")
    private boolean json;

    public boolean json() {
        return json;
    }
}
