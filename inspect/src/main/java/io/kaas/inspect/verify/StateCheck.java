package io.kaas.inspect.verify;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.recovery.CheckpointHint;
import io.kaas.storage.recovery.DerivedStateRebuild;
import io.kaas.storage.recovery.DurableLogStart;
import io.kaas.storage.recovery.Quarantine;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Checks the partition's state files. The log start's two copies (manifest.json, log-start.json) by
 * recovery's rule ({@link DurableLogStart}: an impossible one is damage, problem at byte 0); the derivable
 * files (snapshots, checkpoints) that cannot be read, which recovery would rebuild ({@link DerivedStateRebuild});
 * the topic's .config.json. Then manifest.json and recovery-checkpoint.json against what the log holds. The manifest lags by
 * design (a high watermark below the log end is normal after a crash), so only claims the log cannot
 * back are problems: a high watermark past the log end, a log start past the high watermark, an epoch
 * older than a segment's. The checkpoint must name a segment, a batch boundary inside its valid part,
 * and the offset after that boundary, when it names the active segment; naming one below it is not judged.
 *
 * <p>That is recovery's rule: the checkpoint is refreshed only as the active segment grows, so after a
 * roll it names an older segment until the next refresh, and the cleaner (which merges segments into
 * one named after the first, moving batch boundaries) or retention may change or remove that segment
 * meanwhile. Recovery trusts a checkpoint only when it names the active segment
 * ({@code RecoveryScan.analyseActive}) and otherwise scans the active segment whole and rewrites the
 * checkpoint, so one naming an older segment costs a longer scan and loses nothing.
 */
final class StateCheck {
    private final VerifyReport report;

    StateCheck(VerifyReport report) {
        this.report = report;
    }

    /**
     * @param logEnd       offset after the last valid batch of the partition (or the active segment's base when empty)
     * @param maxEpoch     highest epoch among the segment names (-1 for Apache names)
     * @param segmentsByBase batch maps of the segments, by base offset
     * @param activeBase   base offset of the last (active) segment, or -1 when there is none
     * @param prefix       the log start's copies and the checkpoint as read when verify started, before the segments' sizes
     */
    void check(PartitionPrefix prefix, long logEnd, int maxEpoch, Map<Long, BatchMap> segmentsByBase, long activeBase) {
        Path partitionDir = prefix.dir;
        Path manifestFile = partitionDir.resolve(Manifest.FILE_NAME);
        // The log start's copies are judged by recovery's own rule: an impossible one is the damage recover refuses.
        DurableLogStart logStart = prefix.logStart;
        logStart.impossible().forEach(f -> report.problem(f.file(), 0, f.what()));
        logStart.unreadable()
                .forEach(f -> report.problem(
                        f.file(),
                        -1,
                        "unreadable (" + strip(f.file(), f.what())
                                + "); recover rewrites it from the log and the other copy of the log start"));
        // A durable log start past the log's end is an acknowledged DeleteRecords that outran unsynced data
        // (DurableLogStart): the log resumes there, empty, as recovery leaves it.
        long reached = Math.max(logEnd, logStart.logStart());
        // Likewise past a missing tail that recover --force accepted (recorded in its quarantine note).
        long hw = logStart.manifest() == null ? -1 : logStart.manifest().highWatermark();
        long end = hw > reached && Quarantine.salvagedGap(partitionDir, reached, hw) ? hw : reached;
        Optional.ofNullable(logStart.manifest()).ifPresent(m -> {
            if (m.highWatermark() > end) {
                report.problem(
                        manifestFile,
                        -1,
                        "highWatermark " + m.highWatermark() + " is past the log end " + end
                                + " (acknowledged records are missing from the log)");
            }
            String staleEpoch = DurableLogStart.epochBehindSegments(m, maxEpoch);
            if (staleEpoch != null) {
                report.problem(manifestFile, -1, staleEpoch + "; recover rewrites it");
            }
        });
        // Derivable files: the broker and recover rebuild them from the log (DerivedStateRebuild names the same ones).
        for (DerivedStateRebuild.Finding u : DerivedStateRebuild.unreadable(partitionDir)) {
            report.problem(
                    u.file(), -1, "unreadable (" + strip(u.file(), u.what()) + "); would be rebuilt from the log");
        }
        for (DerivedStateRebuild.Finding f : DerivedStateRebuild.pastLogEnd(partitionDir, end)) {
            report.problem(f.file(), -1, f.what() + "; recovery forgets them and rewrites the file");
        }
        Path checkpointFile = partitionDir.resolve(RecoveryCheckpoint.FILE_NAME);
        prefix.checkpoint.value().ifPresent(c -> {
            if (c.segmentBase() < activeBase) {
                return; // stale: recovery ignores it and rewrites it (see the class comment)
            }
            BatchMap map = segmentsByBase.get(c.segmentBase());
            if (map == null) {
                report.problem(checkpointFile, -1, "segmentBase " + c.segmentBase() + " names no segment");
                return;
            }
            // Recovery's own rule (it scans the segment whole and rewrites the checkpoint when this says why).
            String why = CheckpointHint.disagreement(c, map.endPosition(), map::nextOffsetEndingAt, logEnd, end);
            if (why != null) {
                report.problem(checkpointFile, -1, why);
            }
        });
    }

    /** The message without its leading {@code FILE: } (the problem names the file already). */
    private static String strip(Path file, String message) {
        return message.startsWith(file + ": ")
                ? message.substring(file.toString().length() + 2)
                : message;
    }
}
