package io.kaas.recovery;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code kaas recover PATH}: runs the broker's recovery scan over every partition under PATH and
 * reports, per partition, what it changed (or would change). Damage (a bad batch in durable bytes, or
 * with intact data after it) is refused unless forced; a partition a broker owns is refused unless forced.
 */
public final class OfflineRecovery {
    /**
     * @param dryRun report only, change no byte (and so take no lock)
     * @param force  act on damage (salvage: DamagePolicy.SALVAGE, or with {@code truncate} DamagePolicy.TRUNCATE)
     *               and skip the owner-lock check
     * @param truncate with {@code force}: cut at the damage instead of removing only the damaged bytes
     * @param fast   the broker's open-time shape: trust the checkpoint and closed segments with a sane
     *               index; without it every byte of every segment is scanned
     */
    public record Options(
            boolean dryRun, boolean force, boolean truncate, boolean fast, IndexPolicy indexPolicy, boolean json) {
        /** @param leaderEpoch epoch for a manifest created from nothing: the newest segment's, so it is not older than its files */
        RecoveryOptions scanOptions(int leaderEpoch) {
            RecoveryOptions.DamagePolicy policy = !force
                    ? RecoveryOptions.DamagePolicy.REFUSE
                    : truncate ? RecoveryOptions.DamagePolicy.TRUNCATE : RecoveryOptions.DamagePolicy.SALVAGE;
            return new RecoveryOptions(dryRun, policy, indexPolicy, fast, leaderEpoch, !fast);
        }
    }

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;

    public OfflineRecovery(Options options, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    public int run(Path path) {
        List<Path> partitions;
        try {
            partitions = PartitionFinder.find(path);
        } catch (StorageException e) {
            err.println(IoFailure.withCause(e.getMessage(), e));
            summaryJson(0, 0, 0, ExitCodes.UNREADABLE);
            return ExitCodes.UNREADABLE;
        }
        int exit = ExitCodes.OK;
        int changed = 0;
        int refused = 0;
        for (Path partition : partitions) {
            try (OwnerLock lock = OwnerLock.acquireIfOwned(partition, options.force() || options.dryRun())) {
                List<SegmentFile> segments = PartitionSegments.list(partition);
                requireRegularFiles(segments);
                RecoveryReport report =
                        RecoveryScan.run(partition, options.scanOptions(PartitionSegments.newestEpoch(segments)));
                print(report);
                report.damage().forEach(err::println);
                if (report.refused()) {
                    refused++;
                    exit = ExitCodes.worst(exit, ExitCodes.PROBLEMS);
                } else if (report.changed()) {
                    changed++;
                }
            } catch (StorageException e) {
                err.println(IoFailure.withCause(e.getMessage(), e));
                exit = ExitCodes.worst(exit, ExitCodes.UNREADABLE);
            }
            out.flush();
        }
        summaryJson(partitions.size(), changed, refused, exit);
        err.println(partitions.size() + " partition(s): " + changed
                + (options.dryRun() ? " would change, " : " changed, ") + refused + " refused for damage");
        err.flush();
        return exit;
    }

    /** With --json, the last line: {"type":"summary",...}. */
    private void summaryJson(int partitions, int changed, int refused, int exit) {
        if (options.json()) {
            out.println(JsonLine.of(
                    "type",
                    "summary",
                    "dryRun",
                    options.dryRun(),
                    "partitions",
                    partitions,
                    options.dryRun() ? "wouldChange" : "changed",
                    changed,
                    "refused",
                    refused,
                    "exitCode",
                    exit));
            out.flush();
        }
    }

    /** Names the file when a segment cannot be a log at all (the scan's own error would name only the partition). */
    private static void requireRegularFiles(List<SegmentFile> segments) {
        for (SegmentFile s : segments) {
            if (!java.nio.file.Files.isRegularFile(s.log())) {
                throw new StorageException(
                        StorageException.Kind.IO, s.log() + ": not a regular file, cannot be read as a segment");
            }
        }
    }

    private void print(RecoveryReport report) {
        if (options.json()) {
            out.println(RecoveryReportText.json(report, options.dryRun()));
        } else {
            RecoveryReportText.lines(report, options.dryRun()).forEach(out::println);
        }
    }
}
