package io.kaas.cli;

import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --log-dirs}: a broker's whole volume pool (Apache's {@code log.dirs}, KIP-112), for an offline command
 * that otherwise takes one PATH. Each dir is worked on as a PATH would be, one after the other, into one report.
 */
public final class LogDirsMixin {
    @Option(
            names = "--log-dirs",
            paramLabel = "DIRS",
            description = "Every dir of a broker's pool instead of PATH: DIR[,DIR...], or the JSON form of log.dirs.")
    private String logDirs;

    /** PATH alone, or each dir of {@code --log-dirs}; exactly one of the two. */
    public List<Path> roots(CommandSpec spec, Path path) {
        if (path != null && logDirs != null) {
            throw new ParameterException(spec.commandLine(), "give PATH or --log-dirs, not both");
        }
        if (path != null) {
            return List.of(path);
        }
        if (logDirs == null) {
            throw new ParameterException(spec.commandLine(), "Missing required parameter: PATH (or --log-dirs)");
        }
        try {
            return LogDirs.parse(logDirs).dirs().stream().map(LogDir::path).toList();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--log-dirs: " + e.getMessage(), e);
        }
    }

    /** The pool {@code --log-dirs} names, when given (already checked by {@link #roots}). */
    public java.util.Optional<LogDirs> pool() {
        return logDirs == null ? java.util.Optional.empty() : java.util.Optional.of(LogDirs.parse(logDirs));
    }

    /** Whether {@code --log-dirs} was given. */
    public boolean given() {
        return logDirs != null;
    }
}
