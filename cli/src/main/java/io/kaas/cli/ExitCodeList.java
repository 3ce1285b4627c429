package io.kaas.cli;

import io.kaas.storage.ExitCodes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The "Exit Codes" section of every help page and man page. A command words only its own 0 and 1 (in
 * {@code @Command(exitCodeList = ...)}); the codes every command shares (2, 3, 70) are appended here by
 * {@link Kaas}, so no command can forget or reword them.
 */
final class ExitCodeList {
    private ExitCodeList() {}

    /** 0 and 1 for a command that words neither. */
    static Map<String, String> defaults() {
        Map<String, String> list = new LinkedHashMap<>();
        list.put(Integer.toString(ExitCodes.OK), "Success: the command did what was asked and found no problems.");
        list.put(
                Integer.toString(ExitCodes.PROBLEMS),
                "The command ran and found problems (e.g. verify found corruption).");
        return list;
    }

    /** A command's own entries followed by the shared ones, in the order help pages list them. */
    static Map<String, String> complete(Map<String, String> own) {
        Map<String, String> list = new LinkedHashMap<>(own);
        list.put(Integer.toString(ExitCodes.USAGE), "Usage error: unknown option, missing or malformed argument.");
        list.put(
                Integer.toString(ExitCodes.UNREADABLE),
                "Data could not be read or written (missing file or partition, "
                        + "permission, disk full, not a kaas file, or a running broker owns the partition).");
        list.put(
                Integer.toString(ExitCodes.INTERNAL_ERROR),
                "Internal error: a bug in kaas; the stack trace is on stderr.");
        return list;
    }

    /** The list of a command that words neither 0 nor 1 (the top-level {@code kaas}, {@code serve}, {@code help}). */
    static Map<String, String> descriptions() {
        return complete(defaults());
    }
}
