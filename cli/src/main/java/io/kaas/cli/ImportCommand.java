package io.kaas.cli;

import io.kaas.inspect.verify.Verifier;
import io.kaas.inspect.verify.VerifyReport;
import io.kaas.migration.ApacheImport;
import io.kaas.migration.ImportListener;
import io.kaas.migration.ImportOptions;
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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas import}: an Apache Kafka log dir becomes a kaas data dir (migration/ ApacheImport), then verify. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        header = "Turn a stopped Apache Kafka 4.x log dir into a kaas data dir.",
        description = {
            "Every partition's segments with their record batches byte for byte, so offsets, leader epochs, timestamps, "
                    + "producer ids and sequences are as Apache wrote them: closed segments hard-linked where the file "
                    + "system allows (else copied; --copy always copies), the last segment copied (kaas appends to it). "
                    + "Indexes, producer state and the transaction index are derived from the log. The log start comes "
                    + "from log-start-offset-checkpoint, topic ids from partition.metadata, topic configs from the KRaft "
                    + "metadata log, committed consumer-group offsets from __consumer_offsets; the internal topics "
                    + "themselves are not imported. Apache's files are only read.",
            "Open transactions: one Apache's coordinator was committing (PREPARE_COMMIT) is completed with COMMIT "
                    + "markers; one still ongoing refuses the import (exit 1, nothing written) unless "
                    + "--abort-open-transactions, which ends it with ABORT markers in the kaas copy.",
            "Refuses (exit 3) a log dir whose .lock a running Apache broker holds, a data dir a running kaas broker "
                    + "owns, a topic the data dir already holds, and a damaged Apache segment (FILE:BYTE). "
                    + "`kaas verify` runs on the result; its verdict is part of the output. "
                    + "Progress, one line per partition, goes to stderr."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: imported (or, with --dry-run, importable) and verified clean.",
            "1:Open transactions refused (nothing written), or verify found problems in the result."
        })
public final class ImportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "LOG_DIR", description = "The Apache Kafka log dir (one of log.dirs), its broker stopped.")
    Path logDir;

    @Mixin
    DataDirMixin dataDir;

    @Option(names = "--dry-run", description = "Read and check everything, list what would be written; write nothing.")
    boolean dryRun;

    @Option(names = "--copy", description = "Copy every segment instead of hard-linking the closed ones.")
    boolean copy;

    @Option(
            names = "--abort-open-transactions",
            description = "End transactions Apache left ongoing with ABORT markers instead of refusing the import.")
    boolean abortOpenTransactions;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path target = dataDir.dataDir();
        ImportLines lines = new ImportLines(out, err, jsonOutput.json(), dryRun);
        ApacheImport.Summary summary;
        try {
            summary =
                    new ApacheImport(new ImportOptions(dryRun, copy, abortOpenTransactions), lines).run(logDir, target);
        } catch (OpenTransactionsException e) {
            err.println("kaas import: " + e.getMessage());
            if (jsonOutput.json()) {
                out.println(
                        MigrationLines.json(Map.of("type", "summary", "ok", false, "exitCode", ExitCodes.PROBLEMS)));
            }
            return ExitCodes.PROBLEMS;
        }
        int exit = ExitCodes.OK;
        Map<String, Object> verify = new LinkedHashMap<>();
        if (!dryRun && summary.partitions() > 0) {
            VerifyReport report = new VerifyReport(p -> {
                out.println(jsonOutput.json() ? VerifyReport.toJson(p) : p.toString());
            });
            new Verifier(report).verify(target, n -> {});
            report.unreadable().forEach(err::println);
            exit = report.exitCode();
            verify.put("exitCode", report.exitCode());
            verify.put("problems", report.problems().size());
            verify.put("partitions", report.partitions());
            if (!jsonOutput.json()) {
                out.println(report.summary());
            }
        }
        lines.summary(summary, verify, exit);
        out.flush();
        err.flush();
        return exit;
    }

    /** Prints what the import reports: progress on stderr, one line (or JSON object) per partition and group. */
    static final class ImportLines extends MigrationLines implements ImportListener {
        ImportLines(PrintWriter out, PrintWriter err, boolean json, boolean dryRun) {
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
                m.put("producers", o.producers());
                m.put("markers", o.markers());
                m.put("dryRun", dryRun);
                out.println(json(m));
            } else {
                out.println((dryRun ? "would import " : "imported ") + o.topic() + "-" + o.partition() + " -> "
                        + o.target()
                        + ": " + o.segments() + " segment(s), " + o.bytes() + " bytes (" + o.transfer() + "), offsets "
                        + o.logStartOffset() + ".." + o.logEndOffset() + ", " + o.producers() + " producer(s)"
                        + (o.markers().isEmpty() ? "" : ", markers written: " + String.join("; ", o.markers())));
            }
            out.flush();
        }

        @Override
        public void groupDone(String groupId, int offsets) {
            if (json) {
                out.println(json(Map.of("type", "group", "groupId", groupId, "offsets", offsets, "dryRun", dryRun)));
            } else {
                out.println((dryRun ? "would import " : "imported ") + "group " + groupId + ": " + offsets
                        + " committed offset(s)");
            }
            out.flush();
        }

        void summary(ApacheImport.Summary s, Map<String, Object> verify, int exit) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "summary");
                m.put("ok", exit == ExitCodes.OK);
                m.put("exitCode", exit);
                m.put("dryRun", dryRun);
                m.put("topics", s.topics());
                m.put("partitions", s.partitions());
                m.put("bytes", s.bytes());
                m.put("groups", s.groups());
                m.put("groupOffsets", s.groupOffsets());
                m.put("markers", s.markers());
                m.put("nextProducerId", s.nextProducerId());
                m.put("verify", verify);
                out.println(json(m));
            } else {
                out.println((dryRun ? "would import " : "imported ") + s.topics() + " topic(s), " + s.partitions()
                        + " partition(s), " + s.bytes() + " bytes, " + s.groups() + " group(s) with " + s.groupOffsets()
                        + " committed offset(s), " + s.markers() + " transaction marker(s) written");
            }
        }
    }
}
