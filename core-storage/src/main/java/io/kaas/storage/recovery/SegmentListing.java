package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The analysis's first look at a partition's files: which segments there are (of two with one base offset the
 * higher epoch wins; leftover temporary files and indexes without a log go), and which of them a fenced
 * ex-leader wrote after a later epoch began ({@link #fenceLateWrites}). Only plans what goes: the removals,
 * cuts and action lines it collects are applied by {@link PlanApply}. One instance per scan, one thread.
 */
final class SegmentListing {
    private final Path dir;
    private final List<Path> removals;
    private final List<String> actions;
    private final List<ScanCut> cuts;
    /** Segment files this listing plans to remove (superseded, late writes), for the report. */
    int segmentsRemoved;

    SegmentListing(Path dir, List<Path> removals, List<String> actions, List<ScanCut> cuts) {
        this.dir = dir;
        this.removals = removals;
        this.actions = actions;
        this.cuts = cuts;
    }

    List<SegmentPlan> list() throws IOException {
        TreeMap<Long, List<SegmentName>> byBase = new TreeMap<>();
        List<String> indexFiles = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path f : ds) {
                String n = f.getFileName().toString();
                if (n.endsWith(".tmp")) {
                    removals.add(f);
                    actions.add(f + ": removed leftover temporary file");
                    continue;
                }
                Optional<SegmentName> sn = SegmentName.parse(n);
                if (sn.isEmpty()) {
                    continue;
                }
                if (!Files.isRegularFile(f)) {
                    throw new StorageException(
                            StorageException.Kind.IO, f + ": named like a segment file but is not a regular file");
                }
                if (n.endsWith(SegmentName.LOG_SUFFIX)) {
                    byBase.computeIfAbsent(sn.get().baseOffset(), k -> new ArrayList<>())
                            .add(sn.get());
                } else {
                    indexFiles.add(n);
                }
            }
        }
        List<SegmentPlan> plans = new ArrayList<>();
        List<String> keptIndexNames = new ArrayList<>();
        for (Map.Entry<Long, List<SegmentName>> e : byBase.entrySet()) {
            List<SegmentName> names = e.getValue();
            names.sort(null);
            SegmentName winner = names.get(names.size() - 1);
            for (SegmentName loser : names.subList(0, names.size() - 1)) {
                removals.add(dir.resolve(loser.logFileName()));
                removals.add(dir.resolve(loser.indexFileName()));
                segmentsRemoved++;
                actions.add(String.format(
                        "%s: removed, superseded by %s (same base offset %d, higher epoch %d)",
                        dir.resolve(loser.logFileName()), winner.logFileName(), loser.baseOffset(), winner.epoch()));
            }
            plans.add(new SegmentPlan(dir, winner, Files.size(dir.resolve(winner.logFileName()))));
            keptIndexNames.add(winner.indexFileName());
        }
        for (String idx : indexFiles) {
            if (!keptIndexNames.contains(idx) && !removals.contains(dir.resolve(idx))) {
                removals.add(dir.resolve(idx));
                actions.add(dir.resolve(idx) + ": removed, no log file beside it");
            }
        }
        return plans;
    }

    /**
     * A leader's epoch ends where the next recorded epoch starts ({@link LeaderEpochCheckpoint}). A segment
     * an older epoch started at or past that point was written by a fenced ex-leader after the takeover:
     * removed. The last segment of each older epoch is scanned with that offset as its limit (its tail may
     * hold such late writes; only that segment can, as a leader writes only to its active segment), and cut
     * there. Apache-named segments carry no epoch and are left alone.
     */
    void fenceLateWrites(List<SegmentPlan> plans, LeaderEpochCheckpoint epochs) {
        for (SegmentPlan p : new ArrayList<>(plans)) {
            long end = epochs.endOf(p.name.epoch());
            if (!p.name.apacheStyle() && p.name.baseOffset() >= end) {
                plans.remove(p);
                removals.add(p.log);
                removals.add(p.index);
                segmentsRemoved++;
                cuts.add(
                        new ScanCut(p.log, 0, p.size, "written by a fenced ex-leader after a later epoch began", true));
                actions.add(String.format(
                        "%s: removed, written by epoch %d at or past offset %d, where a later leader"
                                + " epoch began (a fenced ex-leader's late writes)",
                        p.log, p.name.epoch(), end));
            }
        }
        for (int i = 0; i < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            boolean lastOfItsEpoch =
                    i == plans.size() - 1 || plans.get(i + 1).name.epoch() != p.name.epoch();
            if (!p.name.apacheStyle() && lastOfItsEpoch) {
                p.offsetLimit = epochs.endOf(p.name.epoch());
            }
        }
    }
}
