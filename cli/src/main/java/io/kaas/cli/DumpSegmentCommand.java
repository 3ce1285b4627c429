package io.kaas.cli;

import io.kaas.inspect.DumpOptions;
import io.kaas.inspect.SegmentDumper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas dump-segment}: Apache kafka-dump-log's output for kaas and Apache log files, plus JSON. */
@Command(
        name = "dump-segment",
        mixinStandardHelpOptions = true,
        header = "Print the batches, records or entries of log segments, indexes and state files.",
        description = {
            "Prints one line per batch with the fields Apache's kafka-dump-log prints. Reads .log, .index, "
                    + "manifest.json, recovery-checkpoint.json, producer-state.snapshot, txn-index.snapshot and "
                    + "leader-epoch-checkpoint.json, and share group state files (__cluster/share_groups/<group>.json); "
                    + "kaas ({epoch:08x}-{base:020d}.log) and Apache (00000000000000000000.log) names.",
            "With several brokers over one directory, batches a segment's epoch wrote at or past the offset where a later "
                    + "epoch began (leader-epoch-checkpoint.json) are printed after a warning naming them a fenced ex-leader's "
                    + "late writes, which recovery discards.",
            "With --log-dirs each argument is a partition, TOPIC-N as kaas cat takes it, and its segments are dumped, oldest first, from whichever dir of "
                    + "the broker's pool holds it (found as the broker finds it at start-up; an interrupted move's copy "
                    + "is not read).",
            "A torn or zero-filled tail prints \"N invalid bytes at position P\". Never changes a byte."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: files read, nothing wrong in them.",
            "1:Invalid bytes, bad CRCs, wrong index entries or a fenced ex-leader's late writes found."
        })
public final class DumpSegmentCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "FILE",
            arity = "0..*",
            description = "Files to dump (with --log-dirs: partitions, TOPIC-N).")
    List<Path> files = new ArrayList<>();

    @Option(
            names = "--files",
            paramLabel = "FILE",
            split = ",",
            description = "Comma-separated files (as kafka-dump-log).")
    List<Path> moreFiles = new ArrayList<>();

    @Mixin
    LogDirsMixin logDirs;

    @Option(names = "--deep-iteration", description = "Print every record, compressed batches included.")
    boolean deepIteration;

    @Option(names = "--print-data-log", description = "Print record keys and values (implies --deep-iteration).")
    boolean printDataLog;

    @Option(names = "--hex", description = "With --print-data-log: keys and values in hex instead of UTF-8.")
    boolean hex;

    @Option(
            names = "--from-offset",
            paramLabel = "OFFSET",
            description = "Start at the batch holding OFFSET (seeks with the .index).")
    Long fromOffset;

    @Option(names = "--to-offset", paramLabel = "OFFSET", description = "Stop after the batch holding OFFSET.")
    Long toOffset;

    @Option(
            names = "--max-bytes",
            paramLabel = "BYTES",
            description = "Read at most BYTES of log from the start position.")
    Long maxBytes;

    @Option(names = "--verify-index-only", description = "Index files: only check entries against the log.")
    boolean verifyIndexOnly;

    @Option(names = "--index-sanity-check", description = "Index files: only run the broker's sanity check.")
    boolean indexSanityCheck;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Override
    public Integer call() {
        List<Path> all = logDirs.given() ? partitionSegments() : new ArrayList<>(files);
        all.addAll(moreFiles);
        if (all.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: FILE");
        }
        if (maxBytes != null && maxBytes <= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--max-bytes must be positive");
        }
        DumpOptions options = new DumpOptions(
                deepIteration,
                printDataLog,
                hex,
                fromOffset == null ? Long.MIN_VALUE : fromOffset,
                toOffset == null ? Long.MAX_VALUE : toOffset,
                maxBytes == null ? Long.MAX_VALUE : maxBytes,
                verifyIndexOnly,
                indexSanityCheck,
                jsonOutput.json());
        return new SegmentDumper(
                        options, spec.commandLine().getOut(), spec.commandLine().getErr())
                .dump(all);
    }

    /** The {@code .log} files of each TOPIC-N argument, in whichever dir of the pool holds it, oldest first. */
    private List<Path> partitionSegments() {
        List<Path> pool = logDirs.roots(spec, null);
        List<Path> out = new ArrayList<>();
        for (Path arg : files) {
            String p = arg.toString();
            io.kaas.storage.TopicPartition tp = PartitionArgument.parse(spec, p);
            io.kaas.inspect.data.PartitionDir dir =
                    io.kaas.inspect.data.PartitionDir.findInPool(pool, tp.topic(), tp.partition());
            io.kaas.storage.layout.PartitionSegments.list(dir.path()).forEach(s -> out.add(s.log()));
        }
        return out;
    }
}
