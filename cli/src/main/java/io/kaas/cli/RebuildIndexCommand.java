package io.kaas.cli;

import io.kaas.recovery.RebuildIndexRun;
import io.kaas.storage.segment.IndexPolicy;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas rebuild-index}: rewrite .index files from their logs, byte for byte as the broker writes them. */
@Command(
        name = "rebuild-index",
        mixinStandardHelpOptions = true,
        header = "Rewrite .index files from their logs with the broker's own index rule.",
        description = {
            "For every segment under PATH (data dir, topic, partition or one .log/.index file) computes the index "
                    + "the broker writes (an entry once more than --index-interval-bytes were appended since the last) "
                    + "over the log's valid part and replaces the .index when it differs (written beside it, then renamed).",
            "First runs the analysis `kaas recover --dry-run` runs and refuses (exit 1, no index written) a partition "
                    + "it finds damaged, printing each damage as FILE:BYTE: what: an index rebuilt from a damaged log would index the damage.",
            "Refuses (exit 3) a partition whose .lock a running broker holds, or, with --coordinator, one a live "
                    + "broker sharing the directory owns, unless --force."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success (with --check: every index already matches).",
            "1:--check found indexes that differ, or a partition is damaged (refused, nothing written)."
        })
public final class RebuildIndexCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            arity = "0..1",
            description = "Data dir, topic dir, partition dir, or one segment file.")
    Path path;

    @Mixin
    LogDirsMixin logDirs;

    @Option(
            names = "--index-interval-bytes",
            paramLabel = "BYTES",
            defaultValue = "4096",
            description = "Bytes of log between index entries (index.interval.bytes; default ${DEFAULT-VALUE}).")
    int indexIntervalBytes;

    @Option(
            names = "--check",
            description = "Compare with what would be written; change nothing; exit 1 on a difference.")
    boolean check;

    @Option(names = "--dry-run", description = "Report what would be rewritten; change nothing.")
    boolean dryRun;

    @Option(names = "--force", description = "Do not check the partition's owner lock.")
    boolean force;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Mixin
    CoordinatorMixin coordinator;

    @Override
    public Integer call() {
        if (indexIntervalBytes <= 0) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--index-interval-bytes must be positive");
        }
        java.util.List<Path> roots = logDirs.roots(spec, path);
        for (Path root : roots) {
            coordinator.refuseLiveOwned(root, force || check || dryRun);
        }
        RebuildIndexRun.Options options = new RebuildIndexRun.Options(
                new IndexPolicy(indexIntervalBytes), !check && !dryRun, check, force, jsonOutput.json());
        int exit = io.kaas.storage.ExitCodes.OK;
        for (Path root : roots) {
            exit = io.kaas.storage.ExitCodes.worst(
                    exit,
                    new RebuildIndexRun(
                                    options,
                                    spec.commandLine().getOut(),
                                    spec.commandLine().getErr())
                            .run(root));
        }
        return exit;
    }
}
