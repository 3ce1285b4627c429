package io.kaas.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exit-code contract every {@code kaas} command keeps, so scripts can branch on it. {@link Kaas} lists
 * these in every command's help and man page, so a subcommand cannot forget them.
 */
public final class ExitCodes {
    // The contract itself lives in io.kaas.recovery.ExitCodes, where the offline tools' logic returns it.
    public static final int OK = io.kaas.recovery.ExitCodes.OK;
    public static final int PROBLEMS = io.kaas.recovery.ExitCodes.PROBLEMS;
    public static final int USAGE = io.kaas.recovery.ExitCodes.USAGE;
    public static final int UNREADABLE = io.kaas.recovery.ExitCodes.UNREADABLE;
    /** An unexpected exception: a bug in kaas. The stack trace goes to stderr. (70 is sysexits' EX_SOFTWARE.) */
    public static final int INTERNAL_ERROR = 70;

    private ExitCodes() {
    }

    /** Code to description, in the order help pages list them. */
    public static Map<String, String> descriptions() {
        Map<String, String> list = new LinkedHashMap<>();
        list.put(Integer.toString(OK), "Success: the command did what was asked and found no problems.");
        list.put(Integer.toString(PROBLEMS), "The command ran and found problems (e.g. verify found corruption).");
        list.put(Integer.toString(USAGE), "Usage error: unknown option, missing or malformed argument.");
        list.put(Integer.toString(UNREADABLE), "Data could not be read or written (missing file, permission, disk full, partition locked).");
        list.put(Integer.toString(INTERNAL_ERROR), "Internal error: a bug in kaas; the stack trace is on stderr.");
        return list;
    }
}
