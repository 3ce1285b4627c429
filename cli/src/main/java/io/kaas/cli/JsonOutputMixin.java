package io.kaas.cli;

import picocli.CommandLine.Option;

/**
 * {@code --json}: every inspecting command can report as JSON for scripts instead of text for people, and
 * all of them the same way, JSON Lines: each line of stdout is one whole JSON object, one per thing
 * reported (a partition, an index, a problem, a batch, an ACL, a user) as it is done, so a long run can be
 * read while it goes; a command that reports on several things ends with one object whose "type" is
 * "summary" (its counts and exit code). Diagnostics stay on stderr. This description is the one place
 * the convention is stated; every command's --help and man page show it.
 */
public final class JsonOutputMixin {

    @Option(
            names = "--json",
            description = "Print JSON Lines on stdout instead of text: one JSON object per line, one per "
                    + "thing reported as it is done; a command that reports on several things ends with an object whose "
                    + "\"type\" is \"summary\" (counts and exit code). Diagnostics stay on stderr.")
    private boolean json;

    public boolean json() {
        return json;
    }
}
