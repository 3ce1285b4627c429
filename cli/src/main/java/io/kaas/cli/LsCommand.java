package io.kaas.cli;

import io.kaas.inspect.data.DataDirListing;
import io.kaas.inspect.data.ListingTable;
import io.kaas.inspect.data.PartitionSummary;
import io.kaas.storage.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas ls}: every topic and partition of a data dir or Apache log dir, from state files and headers. */
@Command(
        name = "ls",
        mixinStandardHelpOptions = true,
        header = "List the topics, partitions and consumer groups of a data dir or an Apache Kafka log dir.",
        description = {
            "Prints one row per partition: topic, partition, topic id, segment count, log start, log end, high "
                    + "watermark (as the state files record it: manifest.json and recovery-checkpoint.json, which lag "
                    + "by design; an Apache log dir's replication-offset-checkpoint), bytes of log, oldest and newest "
                    + "record timestamps (from batch headers), last write (the newest segment's modification time) and "
                    + "whether a running broker holds the partition (its owner lock). Then the topics' configs that "
                    + "differ from the defaults, and each consumer group's committed offset of each partition with its "
                    + "lag (log end minus committed offset), from __cluster/__consumer_offsets. An Apache log dir keeps "
                    + "configs and groups in its metadata log and __consumer_offsets topic: not shown.",
            "Reads state files and batch headers only (the heads from each partition's last index entry on, and its "
                    + "first), never a whole segment, so it is fast on big dirs. Only reads: runs beside a broker.",
            "--json: one {\"type\":\"partition\"} object per partition, fields topic, partition, topicId, configs, "
                    + "segments, logStartOffset, logEndOffset, highWatermark, bytes, oldestTimestamp, newestTimestamp, "
                    + "lastWriteMs (ms since the epoch, -1 when unknown), ownedByBroker, groups "
                    + "[{group, committedOffset, lag}]; then {\"type\":\"summary\",\"topics\",\"partitions\",\"exitCode\"}."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: every partition listed.",
            "1:Never: ls reports what the files record and judges nothing (kaas verify does)."
        })
public final class LsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            arity = "0..1",
            description = "Data dir, topic dir, partition dir or Apache log dir (default: --data-dir).")
    Path path;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    LogDirsMixin logDirs;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Path> roots = path == null && !logDirs.given() ? List.of(dataDir.dataDir()) : logDirs.roots(spec, path);
        List<PartitionSummary> rows = new ArrayList<>();
        Set<String> topics = new TreeSet<>();
        int partitions = 0;
        for (Path root : roots) {
            partitions += DataDirListing.list(root, s -> {
                topics.add(s.dir().topic());
                if (jsonOutput.json()) {
                    out.println(ListingTable.json(s));
                    out.flush();
                } else {
                    rows.add(s);
                }
            });
        }
        if (jsonOutput.json()) {
            out.println("{\"type\":\"summary\",\"topics\":" + topics.size() + ",\"partitions\":" + partitions
                    + ",\"exitCode\":0}");
        } else {
            ListingTable.print(rows, out);
        }
        out.flush();
        return ExitCodes.OK;
    }
}
