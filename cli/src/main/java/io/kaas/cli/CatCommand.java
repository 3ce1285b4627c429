package io.kaas.cli;

import io.kaas.inspect.ProgressBar;
import io.kaas.inspect.data.CatRange;
import io.kaas.inspect.data.KcatFormat;
import io.kaas.inspect.data.PartitionDir;
import io.kaas.inspect.data.RecordJson;
import io.kaas.inspect.data.RecordReader;
import io.kaas.inspect.data.RecordSink;
import io.kaas.storage.ExitCodes;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas cat}: a partition's records in offset order, as {@code kcat -C -e -f FORMAT} prints them. */
@Command(
        name = "cat",
        mixinStandardHelpOptions = true,
        header = "Print the records of partitions, offline, as kcat -C -e prints them.",
        description = {
            "Reads each TOPIC-N of a kaas data dir or an Apache Kafka log dir in offset order across its segments, "
                    + "compressed batches included (decoded with kafka-clients' record classes), and prints every record "
                    + "with kcat's -f format tokens, byte for byte what `kcat -C -e -f FORMAT` prints for the same "
                    + "partition: %%t topic, %%p partition, %%o offset, %%k key, %%s value (nothing for a null one), %%K and %%S "
                    + "their lengths (-1 for null), %%R the value length as a big-endian int32, %%T the timestamp (ms), %%h the "
                    + "headers as k=v,k2=v2 (a null value as NULL), %%%% a '%%'; \\n, \\r, \\t, \\xHH in the text. Default: "
                    + "kcat's, the value then a newline.",
            "The range is exact to the record, inside compressed batches too: --from-offset or --from-time (the first "
                    + "record whose timestamp is at least T, as a consumer's offsetsForTimes finds it) to --to-offset "
                    + "(inclusive) and --to-time (up to the first record whose timestamp is past T). It ends at the log "
                    + "end (kcat's -e). Records below the log start are never printed, control records never.",
            "--isolation read_committed leaves out aborted transactions' records and stops at the last stable "
                    + "offset, using the transaction index the engine keeps (txn-index.snapshot, brought up to the log "
                    + "end from the recovery checkpoint's position; an Apache log dir: from every batch header). Note that "
                    + "kcat (librdkafka) reads read_committed unless given -X isolation.level=read_uncommitted.",
            "Streams one batch at a time, in constant memory. Only reads: runs beside a broker that owns the "
                    + "partitions. A progress bar goes to stderr when stderr is a terminal and the range spans over "
                    + "64 MiB of log."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: every record in the range printed.",
            "1:A segment holds bytes that frame no batch (FILE:BYTE named on stderr): the records before them and in "
                    + "later segments were printed."
        })
public final class CatCommand implements Callable<Integer> {
    private static final long PROGRESS_FROM_BYTES = 64L << 20;

    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "TOPIC-N",
            arity = "1..*",
            description = "Partitions to print, e.g. orders-3 (the number after the last '-'), in the order given.")
    List<String> partitions = new ArrayList<>();

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    LogDirsMixin logDirs;

    @Option(names = "--from-offset", paramLabel = "N", description = "First offset to print.")
    Long fromOffset;

    @Option(
            names = "--from-time",
            paramLabel = "T",
            description = "Start at the first record whose timestamp is at least T (ms since the epoch, or "
                    + "ISO-8601 such as 2026-12-01T10:00:00Z).")
    String fromTime;

    @Option(names = "--to-offset", paramLabel = "N", description = "Last offset to print.")
    Long toOffset;

    @Option(
            names = "--to-time",
            paramLabel = "T",
            description = "Stop before the first record whose timestamp is after T (ms or ISO-8601).")
    String toTime;

    /** Isolation levels, named as Kafka's consumer config names them. */
    enum Isolation {
        read_uncommitted,
        read_committed
    }

    @Option(
            names = "--isolation",
            paramLabel = "LEVEL",
            defaultValue = "read_uncommitted",
            description = "read_uncommitted (default: every record) or read_committed.")
    Isolation isolation;

    @Option(
            names = {"-f", "--format"},
            paramLabel = "FORMAT",
            description = "kcat's -f format string (default: '%%s\\n').")
    String format;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Option(names = "--no-progress", description = "No progress bar.")
    boolean noProgress;

    @Mixin
    ColorMixin color;

    @Override
    public Integer call() throws IOException {
        if (fromOffset != null && fromTime != null) {
            throw new ParameterException(spec.commandLine(), "--from-offset and --from-time exclude each other");
        }
        if (format != null && jsonOutput.json()) {
            throw new ParameterException(spec.commandLine(), "--format and --json exclude each other");
        }
        KcatFormat kcat;
        try {
            kcat = KcatFormat.parse(format == null ? KcatFormat.DEFAULT : format);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--format: " + e.getMessage());
        }
        CatRange range = new CatRange(
                fromOffset == null ? Long.MIN_VALUE : fromOffset,
                fromTime == null ? Long.MIN_VALUE : time("--from-time", fromTime),
                toOffset == null ? Long.MAX_VALUE : toOffset,
                toTime == null ? Long.MAX_VALUE : time("--to-time", toTime),
                isolation == Isolation.read_committed);
        List<Path> pool = logDirs.given() ? logDirs.roots(spec, null) : List.of(dataDir.dataDir());
        List<PartitionDir> dirs = new ArrayList<>();
        for (String p : partitions) {
            io.kaas.storage.TopicPartition tp = PartitionArgument.parse(spec, p);
            dirs.add(PartitionDir.findInPool(pool, tp.topic(), tp.partition()));
        }
        PrintWriter err = spec.commandLine().getErr();
        OutputStream raw = Kaas.stdoutBytesOf(spec);
        ByteArrayOutputStream inProcess = raw == null ? new ByteArrayOutputStream() : null;
        spec.commandLine().getOut().flush();
        OutputStream out = new BufferedOutputStream(raw == null ? inProcess : raw, 1 << 16);
        RecordJson json = new RecordJson(out);
        RecordSink sink = jsonOutput.json()
                ? json::write
                : (partition, batch, record) -> kcat.write(out, partition.topic(), partition.partition(), record);
        boolean invalid = false;
        long records = 0;
        try {
            for (PartitionDir p : dirs) {
                ProgressBar bar = !noProgress && color.progressOnStderr() ? new ProgressBar(err) : null;
                LongConsumer progress = bar == null ? ProgressBar.NONE : new LongProgress(bar);
                RecordReader.Outcome o = new RecordReader(
                                sink,
                                w -> {
                                    try {
                                        flush(out, inProcess);
                                    } catch (IOException e) {
                                        throw new java.io.UncheckedIOException(e);
                                    }
                                    err.println(w);
                                    err.flush();
                                },
                                progress)
                        .read(p, range);
                if (bar != null) {
                    bar.finish();
                }
                invalid |= o.invalidBytes();
                records += o.records();
            }
            int exit = invalid ? ExitCodes.PROBLEMS : ExitCodes.OK;
            if (jsonOutput.json()) {
                out.write(("{\"type\":\"summary\",\"partitions\":" + dirs.size() + ",\"records\":" + records
                                + ",\"exitCode\":" + exit + "}\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            return exit;
        } finally {
            flush(out, inProcess);
        }
    }

    /** In-process (tests), what was written goes to the command's writer, as UTF-8. */
    private void flush(OutputStream out, ByteArrayOutputStream inProcess) throws IOException {
        out.flush();
        if (inProcess != null) {
            spec.commandLine().getOut().print(inProcess.toString(StandardCharsets.UTF_8));
            spec.commandLine().getOut().flush();
            inProcess.reset();
        }
    }

    private long time(String option, String value) {
        if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), option + ": not a time: '" + value + "'");
            }
        }
        try {
            return Instant.parse(value).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    option + ": not a time (ms since the epoch, or ISO-8601 like 2026-12-01T10:00:00Z): '" + value
                            + "'");
        }
    }

    /** Shows the bar only for a long range: the total comes first (negative), as {@link ProgressBar} takes it. */
    private static final class LongProgress implements LongConsumer {
        private final ProgressBar bar;
        private boolean show;

        LongProgress(ProgressBar bar) {
            this.bar = bar;
        }

        @Override
        public void accept(long bytes) {
            if (bytes < 0) {
                show = -bytes >= PROGRESS_FROM_BYTES;
            }
            if (show) {
                bar.accept(bytes);
            }
        }
    }
}
