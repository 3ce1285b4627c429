package io.kaas.cli;

import io.kaas.inspect.ProgressBar;
import io.kaas.recovery.OfflineCompaction;
import io.kaas.storage.cleaner.CleanerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas compact}: the broker's log cleaner, one pass, offline. */
@Command(
        name = "compact",
        mixinStandardHelpOptions = true,
        header = "Compact the partitions of compacted topics offline: keep the latest record of each key.",
        description = {
            "Runs one pass of the broker's log cleaner over every partition under PATH (data dir, topic dir or "
                    + "partition dir) whose topic has cleanup.policy=compact (or compact,delete); other topics are "
                    + "skipped. Only closed segments below the last stable offset are cleaned, and not those holding "
                    + "records younger than min.compaction.lag.ms. Each key keeps its latest record, with its offset, "
                    + "timestamp, producer id, epoch, sequence and codec; tombstones stay delete.retention.ms after the "
                    + "pass that first saw them; records of aborted transactions go, and markers once no reader needs "
                    + "them. Cleaned segments replace the old ones atomically (see docs/on-disk-format.md).",
            "Prints per partition the segments cleaned and the records, keys and bytes removed.",
            "Refuses (exit 3) a partition whose .lock a running broker holds. Every partition first gets the analysis "
                    + "`kaas recover --dry-run` runs; one it finds damaged (a bad CRC, a field outside the CRC that "
                    + "disagrees with its neighbours) is left unchanged and each damage printed as FILE:BYTE: what (exit 1): "
                    + "run `kaas recover` on it."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: every partition compacted, already clean, or skipped (not a compacted topic).",
            "1:A partition holds damage (what recover refuses); nothing changed in it."
        })
public final class CompactCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "PATH", arity = "0..1", description = "Data dir, topic dir or partition dir.")
    Path path;

    @Mixin
    LogDirsMixin logDirs;

    @Option(names = "--dry-run", description = "Clean in memory only and report what would be removed; change no byte.")
    boolean dryRun;

    @Option(
            names = "--min-compaction-lag-ms",
            paramLabel = "MS",
            description =
                    "Override every topic's min.compaction.lag.ms: segments holding records younger than this stay dirty.")
    Long minCompactionLagMs;

    @Option(
            names = "--dedupe-buffer-size",
            paramLabel = "BYTES",
            defaultValue = "" + CleanerOptions.DEFAULT_DEDUPE_BUFFER_BYTES,
            description =
                    "Memory for the key -> offset map (log.cleaner.dedupe.buffer.size, default ${DEFAULT-VALUE}); "
                            + "a partition with more dirty keys than fit is compacted up to where the map filled.")
    long dedupeBufferBytes;

    @Option(names = "--no-progress", description = "No progress bar (it is shown only when stderr is a terminal).")
    boolean noProgress;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Mixin
    ColorMixin color;

    @Override
    public Integer call() {
        if (minCompactionLagMs != null && minCompactionLagMs < 0) {
            throw new ParameterException(spec.commandLine(), "--min-compaction-lag-ms must be 0 or more");
        }
        if (dedupeBufferBytes < 24 * 16) {
            throw new ParameterException(spec.commandLine(), "--dedupe-buffer-size must be at least 384 bytes");
        }
        ProgressBar bar = !noProgress && color.progressOnStderr()
                ? new ProgressBar(spec.commandLine().getErr())
                : null;
        LongConsumer progress = bar == null ? ProgressBar.NONE : bar;
        OfflineCompaction.Options options =
                new OfflineCompaction.Options(dryRun, jsonOutput.json(), minCompactionLagMs, dedupeBufferBytes);
        int exit = io.kaas.storage.ExitCodes.OK;
        for (Path root : logDirs.roots(spec, path)) {
            exit = io.kaas.storage.ExitCodes.worst(
                    exit,
                    new OfflineCompaction(
                                    options,
                                    spec.commandLine().getOut(),
                                    spec.commandLine().getErr(),
                                    Clock.systemUTC())
                            .run(root, progress));
        }
        if (bar != null) {
            bar.finish();
        }
        return exit;
    }
}
