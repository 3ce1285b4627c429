package io.kaas.cli;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns the errors a command expects (data it cannot read or write) into one line on stderr and exit
 * code 3, because an operator running {@code kaas recover} at 3 a.m. needs "what file, what is wrong",
 * not a stack trace. Anything else is a bug: its stack trace is printed and the exit code is 70.
 */
final class DataErrorHandler implements IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        String message = describe(ex);
        if (message != null) {
            err.println(errorText(commandLine, prefix(commandLine) + message));
        } else {
            err.println(prefix(commandLine) + "internal error, please report it with this trace:");
            ex.printStackTrace(err);
        }
        err.flush();
        return message != null ? ExitCodes.UNREADABLE : ExitCodes.INTERNAL_ERROR;
    }

    /** {@code text} in the error style when stderr shows colour (the help colour scheme follows stdout). */
    static String errorText(CommandLine commandLine, String text) {
        Terminal terminal = Kaas.terminalOf(commandLine.getCommandSpec());
        return CommandLine.Help.defaultColorScheme(terminal.stderrAnsi())
                .errorText(text)
                .toString();
    }

    /** {@code "kaas verify: "}: which command failed, like coreutils do. */
    static String prefix(CommandLine commandLine) {
        return commandLine.getCommandSpec().qualifiedName(" ") + ": ";
    }

    /** One line for an expected data error, or null when {@code ex} is not one (a bug). */
    static String describe(Throwable ex) {
        if (ex instanceof UncheckedIOException unchecked) {
            return describe(unchecked.getCause());
        }
        if (isCoordinationFailure(ex)) {
            // etcd unreachable at start, or this broker id already live: the cluster's state, not a bug.
            return "coordinator: " + ex.getMessage();
        }
        if (ex instanceof StorageException storage) {
            // A wrapper's text often came from IOException.getMessage(), which for EACCES is only the path: add the
            // cause.
            return IoFailure.withCause(
                    storage.getMessage() != null
                            ? storage.getMessage()
                            : storage.kind().toString(),
                    storage);
        }
        if (ex instanceof IOException e) {
            // "FILE: permission denied" (EACCES), "FILE: no space left on device" (ENOSPC), ...
            return IoFailure.describe(e);
        }
        return null;
    }

    /**
     * The broker's CoordinationException, matched by name: offline commands run on a class path without
     * the broker's jars (bin/kaas), where naming the class would fail to load it.
     */
    static final String COORDINATION_EXCEPTION = "io.kaas.cluster.CoordinationException";

    private static boolean isCoordinationFailure(Throwable ex) {
        for (Class<?> c = ex.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(COORDINATION_EXCEPTION)) {
                return true;
            }
        }
        return false;
    }
}
