package io.kaas.inspect.verify;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * {@code kaas verify PATH}: PATH is a data dir, a topic dir, a partition dir, one segment file or one share
 * group's state file; a data dir's share state files are checked too ({@link ShareStateCheck}).
 * Never writes. The report's exit code is 0 clean, 1 problems, 3 unreadable.
 */
public final class Verifier {
    private static final Set<String> STATE_FILES = Set.of(
            Manifest.FILE_NAME,
            RecoveryCheckpoint.FILE_NAME,
            ProducerStateSnapshot.FILE_NAME,
            TxnIndexSnapshot.FILE_NAME,
            LogStart.FILE_NAME,
            LeaderEpochCheckpoint.FILE_NAME);

    private final VerifyReport report;

    public Verifier(VerifyReport report) {
        this.report = report;
    }

    /**
     * @param progress told the total log bytes first (a negative number, once), then bytes as each segment is done
     */
    public VerifyReport verify(Path path, LongConsumer progress) {
        if (!Files.exists(path)) {
            report.unreadable(path + ": no such file or directory");
            return report;
        }
        if (Files.isRegularFile(path)) {
            verifyFile(path);
            return report;
        }
        List<Path> partitions;
        try {
            partitions = PartitionFinder.find(path);
        } catch (StorageException e) {
            report.unreadable(e.getMessage());
            return report;
        }
        progress.accept(-totalLogBytes(partitions));
        PartitionVerifier pv = new PartitionVerifier(report, progress);
        partitions.forEach(pv::verify);
        if (Files.isDirectory(ClusterDir.of(path))) {
            new ShareStateCheck(report).checkDataDir(path);
        }
        return report;
    }

    private void verifyFile(Path file) {
        String name = file.getFileName().toString();
        if (ShareStateCheck.isShareStateFile(file)) {
            new ShareStateCheck(report).checkFile(file);
            return;
        }
        if (STATE_FILES.contains(name)) {
            Path dir = file.toAbsolutePath().getParent();
            new PartitionVerifier(report, b -> {}).verify(dir);
            return;
        }
        SegmentFile segment;
        try {
            segment = SegmentFile.require(file);
        } catch (StorageException e) {
            report.unreadable(e.getMessage());
            return;
        }
        try {
            if (!Files.isRegularFile(segment.log())) {
                report.unreadable(segment.log() + ": no log file for index " + file);
                return;
            }
            report.countPartition();
            Path partition = file.toAbsolutePath().getParent();
            // The partition's damage verdict, as recover gives it, for this segment's files only.
            AnalysisFindings analysis = PartitionSegments.isPartitionDir(partition)
                    ? AnalysisFindings.of(
                            partition,
                            report,
                            f -> f.toAbsolutePath().equals(segment.log().toAbsolutePath())
                                    || f.toAbsolutePath().equals(segment.index().toAbsolutePath()))
                    : AnalysisFindings.none();
            SegmentCheck.Result r = new SegmentCheck(
                            report, PartitionVerifier.isCompacted(partition), analysis, partition)
                    .check(segment, -1);
            new IndexCheck(report).check(segment, r.batches());
        } catch (IOException e) {
            report.unreadable(file + ": cannot read: " + PartitionVerifier.describe(e));
        }
    }

    private static long totalLogBytes(List<Path> partitions) {
        long total = 0;
        for (Path p : partitions) {
            try (var files = Files.list(p)) {
                total += files.filter(f -> SegmentName.isLogFile(f.getFileName().toString()))
                        .mapToLong(f -> {
                            try {
                                return Files.isRegularFile(f) ? Files.size(f) : 0;
                            } catch (IOException e) {
                                return 0;
                            }
                        })
                        .sum();
            } catch (IOException e) {
                // counted as unreadable when the partition is verified
            }
        }
        return total;
    }
}
