package io.kaas.cli;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.StorageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
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
        return CommandLine.Help.defaultColorScheme(terminal.stderrAnsi()).errorText(text).toString();
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
            return storage.getMessage() != null ? storage.getMessage() : storage.kind().toString();
        }
        if (ex instanceof NoSuchFileException e) {
            return e.getFile() + ": no such file or directory";
        }
        if (ex instanceof AccessDeniedException e) {
            return e.getFile() + ": permission denied";
        }
        if (ex instanceof NotDirectoryException e) {
            return e.getFile() + ": not a directory";
        }
        if (ex instanceof FileAlreadyExistsException e) {
            return e.getFile() + ": already exists";
        }
        if (ex instanceof DirectoryNotEmptyException e) {
            return e.getFile() + ": directory not empty";
        }
        if (ex instanceof FileSystemException e) {
            // e.g. "No space left on device"; getMessage() already joins file, other file and reason.
            return e.getMessage();
        }
        if (ex instanceof IOException e) {
            return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        }
        return null;
    }

    /**
     * The broker's CoordinationException, matched by name: offline commands run on a class path without
     * the broker's jars (bin/kaas), where naming the class would fail to load it.
     */
    static final String COORDINATION_EXCEPTION = "io.kaas.broker.coordination.CoordinationException";

    private static boolean isCoordinationFailure(Throwable ex) {
        for (Class<?> c = ex.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(COORDINATION_EXCEPTION)) {
                return true;
            }
        }
        return false;
    }
}
