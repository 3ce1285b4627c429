package io.kaas.cli;

import io.kaas.migration.ApacheExport;
import io.kaas.migration.ApacheNames;
import io.kaas.migration.ExportListener;
import io.kaas.migration.ExportOptions;
import io.kaas.migration.OpenTransactionsException;
import io.kaas.storage.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kaas export}: a kaas data dir becomes an Apache Kafka 4.4 log dir (migration/ ApacheExport). */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        header = "Turn a kaas data dir into an Apache Kafka 4.4 log dir a single-node KRaft broker starts on.",
        description = {
            "The way back from kaas import: every partition's segments as <topic>-<n>/<base:020d>.log with their "
                    + "record batches byte for byte (closed segments hard-linked where the file system allows, else "
                    + "copied; --copy always copies; the last segment copied, since Apache appends to it), "
                    + "partition.metadata with the topic id, leader-epoch-checkpoint from the batches, Apache's "
                    + "log-start and high-watermark checkpoints, and the committed consumer-group offsets as "
                    + "OffsetCommit records in __consumer_offsets. meta.properties and the KRaft metadata log "
                    + "(the standalone voter set, topics, partitions, topic configs, the "
                    + "producer-id floor) are written by Apache's own Formatter, as kafka-storage format --standalone "
                    + "would, with the topics as bootstrap records.",
            "Start Apache on it WITHOUT formatting: process.roles=broker,controller, node.id=--node-id, "
                    + "log.dirs=LOG_DIR, the controller listener named --controller-listener-name at --controller, "
                    + "controller.quorum.bootstrap.servers=--controller. Apache rebuilds the .index, .timeindex and "
                    + ".txnindex files and producer state from the log on its first start (its recovery, as after an "
                    + "unclean shutdown).",
            "Refuses (exit 3) a data dir a running kaas broker owns (export holds <data>/.lock while it reads, so "
                    + "the copy is consistent), a LOG_DIR that is not empty, and damage or a torn tail (FILE:BYTE); "
                    + "a transaction still open refuses with exit 1. Nothing is written before everything was "
                    + "read and checked. Progress, one line per partition, goes to stderr."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: exported (or, with --dry-run, exportable).",
            "1:A transaction still open in the data dir refused the export (nothing written)."
        })
public final class ExportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Option(
            names = "--to",
            paramLabel = "LOG_DIR",
            required = true,
            description = "The Apache log dir to write (log.dirs); must not exist or be empty.")
    Path logDir;

    @Option(names = "--dry-run", description = "Read and check everything, list what would be written; write nothing.")
    boolean dryRun;

    @Option(names = "--copy", description = "Copy every segment instead of hard-linking the closed ones.")
    boolean copy;

    @Option(
            names = "--cluster-id",
            paramLabel = "ID",
            description = "The cluster id (kafka-storage random-uuid form); default: a new one.")
    String clusterId;

    @Option(
            names = "--node-id",
            paramLabel = "N",
            defaultValue = "1",
            description = "Apache's node.id: the only broker and controller (default: 1).")
    int nodeId;

    @Option(
            names = "--controller",
            paramLabel = "HOST:PORT",
            defaultValue = "localhost:9093",
            description = "Where Apache's controller listener will be, as the voter set records it "
                    + "(default: localhost:9093, Apache's sample server.properties).")
    String controller;

    @Option(
            names = "--controller-listener-name",
            paramLabel = "NAME",
            defaultValue = "CONTROLLER",
            description = "Apache's controller.listener.names (first entry; default: CONTROLLER).")
    String controllerListener;

    @Option(
            names = "--offsets-partitions",
            paramLabel = "N",
            defaultValue = "" + ApacheNames.DEFAULT_OFFSETS_PARTITIONS,
            description = "Apache's offsets.topic.num.partitions: groups hash onto this many (default: 50).")
    int offsetsPartitions;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ExportLines lines = new ExportLines(out, err, jsonOutput.json(), dryRun);
        ExportOptions options =
                new ExportOptions(dryRun, copy, clusterId, nodeId, controllerListener, controller, offsetsPartitions);
        ApacheExport.Summary summary;
        try {
            summary = new ApacheExport(options, lines).run(dataDir.existingDataDir(), logDir);
        } catch (OpenTransactionsException e) {
            err.println("kaas export: " + e.getMessage());
            if (jsonOutput.json()) {
                out.println(
                        MigrationLines.json(Map.of("type", "summary", "ok", false, "exitCode", ExitCodes.PROBLEMS)));
            }
            out.flush();
            err.flush();
            return ExitCodes.PROBLEMS;
        }
        lines.summary(summary, logDir);
        out.flush();
        err.flush();
        return ExitCodes.OK;
    }

    /** Prints what the export reports: progress on stderr, one line (or JSON object) per partition and group. */
    static final class ExportLines extends MigrationLines implements ExportListener {
        ExportLines(PrintWriter out, PrintWriter err, boolean json, boolean dryRun) {
            super(out, err, json, dryRun);
        }

        @Override
        public void partitionDone(PartitionOutcome o) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "partition");
                m.put("topic", o.topic());
                m.put("partition", o.partition());
                m.put("target", o.target());
                m.put("segments", o.segments());
                m.put("bytes", o.bytes());
                m.put("transfer", o.transfer());
                m.put("logStartOffset", o.logStartOffset());
                m.put("logEndOffset", o.logEndOffset());
                m.put("leaderEpoch", o.leaderEpoch());
                m.put("dryRun", dryRun);
                out.println(json(m));
            } else {
                out.println((dryRun ? "would export " : "exported ") + o.topic() + "-" + o.partition() + " -> "
                        + o.target() + ": " + o.segments() + " segment(s), " + o.bytes() + " bytes ("
                        + o.transfer() + "), offsets " + o.logStartOffset() + ".." + o.logEndOffset()
                        + ", leader epoch " + o.leaderEpoch());
            }
            out.flush();
        }

        @Override
        public void groupDone(String groupId, int offsets, int partition) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "group");
                m.put("groupId", groupId);
                m.put("offsets", offsets);
                m.put("partition", partition);
                m.put("dryRun", dryRun);
                out.println(json(m));
            } else {
                out.println((dryRun ? "would export " : "exported ") + "group " + groupId + ": " + offsets
                        + " committed offset(s) into " + ApacheNames.CONSUMER_OFFSETS + "-" + partition);
            }
            out.flush();
        }

        void summary(ApacheExport.Summary s, Path logDir) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "summary");
                m.put("ok", true);
                m.put("exitCode", ExitCodes.OK);
                m.put("dryRun", dryRun);
                m.put("logDir", logDir.toString());
                m.put("topics", s.topics());
                m.put("partitions", s.partitions());
                m.put("bytes", s.bytes());
                m.put("groups", s.groups());
                m.put("groupOffsets", s.groupOffsets());
                m.put("clusterId", s.clusterId());
                m.put("directoryId", s.directoryId());
                out.println(json(m));
            } else {
                out.println((dryRun ? "would export " : "exported ") + s.topics() + " topic(s), " + s.partitions()
                        + " partition(s), " + s.bytes() + " bytes, " + s.groups() + " group(s) with "
                        + s.groupOffsets() + " committed offset(s); cluster id " + s.clusterId()
                        + (dryRun ? "" : ", directory id " + s.directoryId()));
            }
        }
    }
}
