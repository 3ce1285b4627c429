package io.kaas.cli;

import io.kaas.inspect.ProgressBar;
import io.kaas.inspect.verify.Verifier;
import io.kaas.inspect.verify.VerifyReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas verify}: read-only check of CRCs, offsets, names, indexes, manifest and checkpoint. */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        header = "Check a data dir, topic, partition or segment for corruption and inconsistency.",
        description = {
            "Checks the CRC-32C of every batch (stored bytes must be exactly the client's), that offsets increase "
                    + "and are contiguous within and across segments, that file names match contents, that index "
                    + "entries point at the right batches, and that manifest.json and recovery-checkpoint.json agree "
                    + "with the log. Each problem is printed as FILE:BYTE: what is wrong. Never changes a byte.",
            "",
            "The log start's two durable copies (manifest.json, log-start.json) are judged by the rule `kaas recover` "
                    + "and the broker refuse by: a negative logStartOffset or highWatermark, a logStartOffset past the "
                    + "highWatermark written with it, or a manifest log start past the one log-start.json records is "
                    + "damage (FILE:0). The topic's .config.json must be readable and hold values the engine can apply.",
            "",
            "Derivable files (producer-state.snapshot, txn-index.snapshot, leader-epoch-checkpoint.json, "
                    + "recovery-checkpoint.json, .index files) that cannot be read or disagree with the log are "
                    + "problems too (exit 1; an unreadable JSON one is reported as \"would be rebuilt from the log\"), "
                    + "although `kaas recover` and the broker rebuild them without asking: exit 0 means there is nothing "
                    + "to repair, and after a `kaas recover` that exits 0, verify exits 0.",
            "",
            "A data dir's share group state files (__cluster/share_groups/<group>.json; or one given as PATH) must "
                    + "parse as the broker reads them and hold a state it can restart from: version, group id matching "
                    + "the file name, offsets increasing and within start and end offset, known states, delivery counts "
                    + "not negative (FILE:0). A .tmp left by a crash is not a problem.",
            "",
            "Whether a partition is damaged, and which batch, is the answer of the analysis `kaas recover --dry-run` "
                    + "runs, so the two agree; verify's further checks come on top.",
            "Beside a running broker it checks what was there when it started (manifest and checkpoint, then each "
                    + "segment's size): a segment created since is ignored, and a batch or index entry being appended "
                    + "to a partition the broker holds is not reported."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Success: no problems found.",
            "1:Problems found (each printed as FILE:BYTE: what), derivable files recover would rebuild included."
        })
public final class VerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            arity = "0..1",
            description = "Data dir, topic dir, partition dir, or one .log/.index file.")
    Path path;

    @Mixin
    LogDirsMixin logDirs;

    @Mixin
    JsonOutputMixin jsonOutput;

    @Option(names = "--no-progress", description = "No progress bar (it is shown only when stderr is a terminal).")
    boolean noProgress;

    @Mixin
    ColorMixin color;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        VerifyReport report = new VerifyReport(p -> {
            out.println(jsonOutput.json() ? VerifyReport.toJson(p) : p.toString());
            out.flush();
        });
        ProgressBar bar = !noProgress && color.progressOnStderr() ? new ProgressBar(err) : null;
        LongConsumer progress = bar == null ? ProgressBar.NONE : bar;
        Verifier verifier = new Verifier(report);
        for (Path root : logDirs.roots(spec, path)) {
            verifier.verify(root, progress);
        }
        if (bar != null) {
            bar.finish();
        }
        if (jsonOutput.json()) {
            out.println(report.summaryJson());
        } else {
            report.unreadable().forEach(err::println);
            if (report.partitions() > 0 || report.unreadable().isEmpty()) {
                err.println(report.summary()); // "verified 0 partition(s)" would read as "all clean" for a path holding
                // nothing
            }
        }
        out.flush();
        err.flush();
        return report.exitCode();
    }
}
