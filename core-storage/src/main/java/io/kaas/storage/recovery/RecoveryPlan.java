package io.kaas.storage.recovery;

import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@link LogAnalysis} decided, before anything is written: the outcome a caller sees (report, segments,
 * offsets), and the writes that make the files say so, null when the partition is refused (nothing may
 * change). {@link PlanApply} is the only code that writes them; a dry run stops at the plan.
 */
record RecoveryPlan(RecoveryScan.Outcome outcome, Writes writes) {
    static RecoveryPlan refused(RecoveryScan.Outcome outcome) {
        return new RecoveryPlan(outcome, null);
    }

    /**
     * @param segments      the segments that stay, each with what apply does to it (create, rewrite, cut, index)
     * @param removals      files to remove (superseded or fenced segments, leftovers, cut-off segments)
     * @param quarantine    every byte removed, saved first (empty when nothing leaves the log, or not forced)
     * @param logStartCopy  log-start.json to write, or null
     * @param after         the manifest to write when it differs from {@code before}
     * @param newCheckpoint the checkpoint to write when it differs from {@code oldCheckpoint} (pulled back
     *                      below a cut), or null
     */
    record Writes(
            Path dir,
            List<SegmentPlan> segments,
            List<Path> removals,
            Quarantine quarantine,
            LogStart logStartCopy,
            Manifest after,
            Manifest before,
            RecoveryCheckpoint newCheckpoint,
            RecoveryCheckpoint oldCheckpoint) {}
}
