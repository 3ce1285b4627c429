package io.kaas.cli;

import io.kaas.recovery.OfflineRecovery;
import io.kaas.storage.segment.IndexPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas recover}: the broker's own recovery scan, run offline, with a report of what it changed. */
@Command(
        name = "recover",
        mixinStandardHelpOptions = true,
        header = "Run the broker's recovery scan over a data dir, topic or partition.",
        description = {
            "Truncates torn tails (short or zero-filled) to the last valid batch, rebuilds bad or missing indexes, "
                    + "removes stale and leftover files, reconciles manifest.json with the log and writes the "
                    + "recovery checkpoint at EOF: the very code a partition open runs. Reports per partition the "
                    + "bytes truncated, batches dropped and the high watermark before and after.",
            "A bad batch in bytes known to be durable (a closed segment, below the recovery checkpoint or the "
                    + "manifest's high watermark), or followed by a CRC-valid batch continuing the log, is damage: "
                    + "reported as FILE:BYTE: what, nothing changed, exit 1. A bad tail past the last durable point with "
                    + "nothing valid after it is a torn write and is cut without asking.",
            "--force salvages: removes only the damaged byte ranges and keeps every intact batch after them (an "
                    + "offset gap, as compaction leaves; offsets are not reused). --force --truncate cuts at the damage "
                    + "and removes later segments. Either way every removed byte is first saved, fsynced, under "
                    + "PARTITION/.quarantine/TIME/ (FILE.START-END plus note.json), so the repair can be undone by hand.",
            "Refuses (exit 3) a partition whose .lock a running broker holds, or, with --coordinator, one a live "
                    + "broker sharing the directory owns, unless --force."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: recovered, or already clean.",
            "1:Damage found and refused; nothing changed in that partition (rerun with --force)."
        })
public final class RecoverCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "PATH", arity = "0..1", description = "Data dir, topic dir or partition dir.")
    Path path;

    @Mixin
    LogDirsMixin logDirs;

    @Option(names = "--dry-run", description = "Report what would change; change no byte.")
    boolean dryRun;

    @Option(
            names = "--force",
            description =
                    "Salvage damage (remove only the damaged bytes, quarantined first) and ignore the owner lock.")
    boolean force;

    @Option(
            names = "--truncate",
            description = "With --force: cut at the damage instead, removing later segments (quarantined first).")
    boolean truncate;

    @Option(
            names = "--fast",
            description =
                    "Scan only what a broker open scans: trust the checkpoint and closed segments whose index is sane.")
    boolean fast;

    @Option(
            names = "--index-interval-bytes",
            paramLabel = "BYTES",
            defaultValue = "4096",
            description = "Index interval for rebuilt indexes (default ${DEFAULT-VALUE}).")
    int indexIntervalBytes;

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
        if (truncate && !force) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--truncate needs --force");
        }
        List<Path> roots = logDirs.roots(spec, path);
        for (Path root : roots) {
            coordinator.refuseLiveOwned(root, force || dryRun);
        }
        // Over a whole pool, first what the broker's start does with interrupted log dir moves (one rule).
        logDirs.pool()
                .ifPresent(pool -> io.kaas.storage.layout.PartitionMove.resolve(pool, dryRun)
                        .forEach(a -> {
                            if (!jsonOutput.json()) {
                                spec.commandLine().getOut().println(a);
                            }
                        }));
        OfflineRecovery.Options options = new OfflineRecovery.Options(
                dryRun, force, truncate, fast, new IndexPolicy(indexIntervalBytes), jsonOutput.json());
        int exit = 0;
        for (Path root : roots) {
            int code = new OfflineRecovery(
                            options,
                            spec.commandLine().getOut(),
                            spec.commandLine().getErr())
                    .run(root);
            exit = Math.max(exit, code); // the worst of the dirs': data unreadable (3) over damage (1) over clean
        }
        return exit;
    }
}
