package io.kaas.cli;

import io.kaas.recovery.DeleteRecordsRequest;
import io.kaas.recovery.DeleteRecordsRun;
import io.kaas.storage.ExitCodes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kaas delete-records}: kafka-delete-records, offline, on a data dir. */
@Command(
        name = "delete-records",
        mixinStandardHelpOptions = true,
        header = "Advance partitions' log start offset offline and remove segments wholly below it.",
        description = {
            "Writes the new log start offset to manifest.json (atomically), then unlinks closed segments whose "
                    + "every offset is below it; the active segment is never removed. Offset -1 means the high "
                    + "watermark, read from the log itself. Prints \"partition: T-P<TAB>low_watermark: N\" per "
                    + "partition, as kafka-delete-records does.",
            "First runs the analysis `kaas recover --dry-run` runs and refuses (exit 1, nothing changed) a partition it "
                    + "finds damaged, printing each damage as FILE:BYTE: what.",
            "Refuses (exit 3) a partition whose .lock a running broker holds, or, with --coordinator, one a live "
                    + "broker sharing the directory owns, unless --force."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success.",
            "1:An offset was out of range (above the high watermark), or a partition is damaged (refused, nothing changed)."
        })
public final class DeleteRecordsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    LogDirsMixin logDirs;

    @Mixin
    CoordinatorMixin coordinator;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    static final class Source {
        @ArgGroup(exclusive = false)
        One one;

        @Option(
                names = "--offset-json-file",
                paramLabel = "FILE",
                description =
                        "kafka-delete-records JSON: {\"partitions\":[{\"topic\":..,\"partition\":..,\"offset\":..}],\"version\":1}")
        Path jsonFile;
    }

    static final class One {
        @Option(
                names = "--topic",
                required = true,
                paramLabel = "TOPIC",
                description = "Topic of the one partition to purge.")
        String topic;

        @Option(
                names = "--partition",
                required = true,
                paramLabel = "N",
                description = "Partition number within --topic.")
        int partition;

        @Option(
                names = "--offset",
                required = true,
                paramLabel = "OFFSET",
                description = "New log start offset; -1 = high watermark.")
        long offset;
    }

    @Mixin
    JsonOutputMixin jsonOutput;

    @Option(names = "--dry-run", description = "Print what would happen; change no byte.")
    boolean dryRun;

    @Option(names = "--force", description = "Do not check the partitions' owner lock.")
    boolean force;

    @Override
    public Integer call() {
        DeleteRecordsRequest request;
        if (source.jsonFile != null) {
            try {
                request = DeleteRecordsRequest.parse(source.jsonFile);
            } catch (DeleteRecordsRequest.FormatException e) {
                spec.commandLine().getErr().println(e.getMessage());
                return ExitCodes.USAGE;
            } catch (IOException e) {
                spec.commandLine()
                        .getErr()
                        .println(source.jsonFile + ": cannot read: " + io.kaas.storage.io.IoFailure.cause(e));
                return ExitCodes.UNREADABLE;
            }
        } else {
            if (source.one.offset < -1) {
                throw new ParameterException(
                        spec.commandLine(), "--offset must be -1 (high watermark) or an offset >= 0");
            }
            request = new DeleteRecordsRequest(List.of(
                    new DeleteRecordsRequest.Target(source.one.topic, source.one.partition, source.one.offset)));
        }
        // --log-dirs: each partition is purged in the dir of the pool that holds it.
        List<Path> pool = logDirs.given() ? logDirs.roots(spec, null) : List.of(dataDir.dataDir());
        for (Path d : pool) {
            coordinator.refuseLiveOwned(d, force || dryRun);
        }
        return new DeleteRecordsRun(
                        pool,
                        dryRun,
                        force,
                        jsonOutput.json(),
                        spec.commandLine().getOut(),
                        spec.commandLine().getErr())
                .run(request);
    }
}
