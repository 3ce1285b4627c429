package io.kaas.storage.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * The cause of an I/O failure in the words of the OS ({@code strerror}), for messages an operator reads:
 * {@code AccessDeniedException} carries only a path, so "permission denied" (EACCES/EPERM) has to be
 * said here; a plain {@code FileSystemException} carries the OS's reason ("No space left on device",
 * ENOSPC). Every tool and the cli word failures through this class, so one failure reads the same everywhere.
 */
public final class IoFailure {
    private IoFailure() {}

    /** "permission denied", "no space left on device", ...: the cause alone, never null. */
    public static String cause(Throwable e) {
        if (e instanceof UncheckedIOException u && u.getCause() != null) {
            return cause(u.getCause());
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return lowerFirst(fs.getReason());
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : lowerFirst(m);
    }

    /** {@code FILE: cause} when the exception names a file (and a second one when it names two), else the cause. */
    public static String describe(Throwable e) {
        Throwable t = e instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : e;
        if (t instanceof FileSystemException fs && fs.getFile() != null) {
            return fs.getFile() + (fs.getOtherFile() != null ? " -> " + fs.getOtherFile() : "") + ": " + cause(fs);
        }
        return cause(t);
    }

    /**
     * {@code message}, with the cause of {@code failure} added when the message does not already say it:
     * wrappers often built their text from {@link IOException#getMessage()}, which for
     * {@code AccessDeniedException} is only a path.
     */
    public static String withCause(String message, Throwable failure) {
        Throwable io = failure;
        while (io != null && !(io instanceof IOException)) {
            io = io.getCause() == io ? null : io.getCause();
        }
        if (io == null) {
            return message;
        }
        String cause = cause(io);
        if (message == null) {
            return describe(io);
        }
        return message.toLowerCase(Locale.ROOT).contains(cause.toLowerCase(Locale.ROOT))
                ? message
                : message + " (" + cause + ")";
    }

    private static String lowerFirst(String s) {
        // "No space left on device" -> "no space left on device"; a message starting with a path stays as it is.
        return s.length() > 1 && Character.isUpperCase(s.charAt(0)) && Character.isLowerCase(s.charAt(1))
                ? Character.toLowerCase(s.charAt(0)) + s.substring(1)
                : s;
    }
}
