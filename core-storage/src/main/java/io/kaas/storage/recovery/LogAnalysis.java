package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The analyse pass of a {@link RecoveryScan}: reads a partition and returns a {@link RecoveryPlan} (the
 * outcome, and the writes that would make the files say so), writing nothing of the log itself, so a refusal
 * or a dry run changes nothing. In order: the topic config and the log start's durable copies (an impossible
 * one is damage); an interrupted cleaner swap (the one step that writes before the plan, finishing or
 * discarding the swap, and not on a dry run); the segments ({@link SegmentListing}, fenced late writes); each
 * segment's walk ({@link SegmentScans}); the damage verdict and what the policy does about it
 * ({@link DamageRepair}); offsets missing between segments or at the end ({@link OffsetGaps}); the torn tail;
 * the recovered log end, log start, epoch, manifest and checkpoint. One instance per scan, one thread.
 */
final class LogAnalysis {
    private final Path dir;
    private final RecoveryOptions options;
    private final RecoveryScan.TailVisitor visitor;
    private final List<String> actions = new ArrayList<>();
    private final List<String> damage = new ArrayList<>();
    private final List<Path> removals = new ArrayList<>();
    /** Bytes cut or removed outside the damage verdict (late writes, torn tails): saved too when forced. */
    private final List<ScanCut> cuts = new ArrayList<>();

    private final SegmentListing listing;
    /** The segment walks, once what they check against is known (null before). */
    private SegmentScans scans;

    private long bytesTruncated;
    private long batchesDropped;
    private long recordsDropped;
    private int indexesRebuilt;
    private int segmentsRemoved;

    LogAnalysis(Path dir, RecoveryOptions options, RecoveryScan.TailVisitor visitor) {
        this.dir = dir;
        this.options = options;
        this.visitor = visitor;
        this.listing = new SegmentListing(dir, removals, actions, cuts);
    }

    RecoveryPlan analyse() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new StorageException(StorageException.Kind.IO, dir + ": not a directory");
        }
        // A damaged topic config refuses every partition of the topic, whatever the policy: its cleanup policy
        // is not derivable, and --force only removes log bytes, which cannot repair it.
        Path topicDir = dir.toAbsolutePath().getParent();
        Optional<String> configDamage = topicDir == null ? Optional.empty() : TopicConfigFile.damageOf(topicDir);
        if (configDamage.isPresent()) {
            damage.add(configDamage.get());
            return RecoveryPlan.refused(
                    new RecoveryScan.Outcome(report(null, null, true), List.of(), -1, -1, options.leaderEpoch()));
        }
        // The log start's durable copies first: an impossible one is damage, refused before anything changes.
        DurableLogStart durable = DurableLogStart.read(dir);
        long durableLogStart = durable.logStart();
        if (!durable.impossible().isEmpty() && options.onDamage() == RecoveryOptions.DamagePolicy.REFUSE) {
            damage.addAll(durable.damage());
            return RecoveryPlan.refused(
                    new RecoveryScan.Outcome(report(null, null, true), List.of(), -1, -1, options.leaderEpoch()));
        }
        // Forced: an impossible copy is ignored like an unreadable one, and rewritten; the line keeps what it said.
        durable.damage().forEach(d -> actions.add(d + "; ignored (--force) and rewritten"));
        actions.addAll(durable.actions());
        Manifest before = durable.manifest();
        // A cleaner swap interrupted by a crash is finished (committed) or discarded (not) before the
        // segments are listed: its .cleaned files are not segments, its intent names what it replaces.
        actions.addAll(CleanerSwap.recover(dir, options.dryRun()));
        RecoveryCheckpoint checkpoint = readState(dir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class);
        List<SegmentPlan> plans = listing.list();
        LeaderEpochCheckpoint epochs =
                readState(dir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class);
        // Only a checkpoint that agrees with the segment names fences late writes: one that disagrees is rebuilt
        // from the names (DerivedStateRebuild), and a derivable file, damaged or rebuilt from names a damaged
        // copy may carry, never removes CRC-valid batches without --force.
        LeaderEpochCheckpoint epochsFound = LeaderEpochCheckpoint.EMPTY;
        if (epochs != null && DerivedEpochs.trusted(dir, epochs) == epochs) {
            listing.fenceLateWrites(plans, epochs);
            epochsFound = epochs;
        }
        checkpoint = CheckpointHint.plausibleOrNull(dir, checkpoint, plans, actions);
        if (checkpoint != null
                && !plans.isEmpty()
                && checkpoint.segmentBase() > plans.get(plans.size() - 1).name.baseOffset()) {
            // One naming an older segment is normal after a roll (ignored, rewritten quietly); past the active one, no
            // writer leaves it.
            actions.add(dir.resolve(RecoveryCheckpoint.FILE_NAME) + ": segmentBase " + checkpoint.segmentBase()
                    + " names no segment; ignored and rewritten");
        }

        scans = new SegmentScans(dir, options, visitor, actions, cuts, checkpoint, epochsFound, durableLogStart);
        for (int i = 0; i < plans.size(); i++) {
            boolean active = i == plans.size() - 1;
            SegmentPlan p = plans.get(i);
            scans.loadIndex(p);
            if (active) {
                scans.analyseActive(p, checkpoint);
            } else if (options.scanAllSegments()
                    || p.rebuildIndex
                    || p.offsetLimit != Long.MAX_VALUE
                    || SegmentScans.indexReachesNext(p, plans.get(i + 1))
                    || !OffsetGaps.lastEntryFramesToEnd(p)) {
                scans.scanWhole(p, false);
            } else {
                p.entries = Arrays.asList(p.existingEntries);
            }
        }

        OffsetGaps.markJumpedLastBatches(plans);
        DamageRepair repair = new DamageRepair(dir, options, damage, actions, removals);
        for (DurableLogStart.Finding f : durable.impossible()) {
            repair.quarantineWhole(f.file(), f.what()); // only forced gets here with one
        }
        repair.judge(plans, before, checkpoint);
        boolean refused = repair.handle(plans, repair.overlaps(plans));
        boolean forced = options.onDamage() != RecoveryOptions.DamagePolicy.REFUSE;
        for (OffsetGaps.Gap gap : OffsetGaps.betweenSegments(dir, plans, durable.logStart())) {
            if (forced) {
                repair.acceptGap(gap.follows(), gap.from(), gap.to(), gap.what());
            } else {
                damage.add(gap.line());
                refused = true;
            }
        }
        if (!refused && forced) {
            // Under --force every byte that leaves the log is saved first, not only the damage.
            for (ScanCut c : cuts) {
                // a cut inside a segment that --force --truncate then removed whole is in the quarantine already
                boolean removedWhole = !c.wholeFile() && plans.stream().noneMatch(p -> p.log.equals(c.file()));
                if (!removedWhole) {
                    repair.quarantineRange(c.file(), c.start(), c.end(), c.why());
                }
            }
        }
        bytesTruncated += repair.bytesRemoved;
        batchesDropped += repair.batchesDropped;
        recordsDropped += repair.recordsDropped;
        segmentsRemoved += repair.segmentsRemoved;
        if (!refused && !plans.isEmpty()) {
            SegmentPlan last = plans.get(plans.size() - 1);
            if (last.stop != null) {
                long cut = last.size - last.validEnd;
                bytesTruncated += cut;
                if (options.onDamage() != RecoveryOptions.DamagePolicy.REFUSE) {
                    repair.quarantineRange(last.log, last.validEnd, last.size, "torn tail: " + last.stop.getMessage());
                }
                actions.add(String.format(
                        "%s: truncated %d bytes of %s at byte %d (%s)",
                        last.log,
                        cut,
                        last.zeroTail ? "zero-filled torn tail" : "torn tail",
                        last.validEnd,
                        last.stop.getMessage()));
            }
        }

        if (!refused) {
            repair.listQuarantine();
        }
        int epoch = Math.max(before == null ? options.leaderEpoch() : before.epoch(), options.leaderEpoch());
        int newestSegmentEpoch = plans.stream()
                .filter(p -> !p.name.apacheStyle())
                .mapToInt(p -> p.name.epoch())
                .max()
                .orElse(-1);
        String staleEpoch = DurableLogStart.epochBehindSegments(before, newestSegmentEpoch);
        if (staleEpoch != null && !refused) {
            epoch = Math.max(epoch, newestSegmentEpoch);
            actions.add(dir.resolve(Manifest.FILE_NAME) + ": " + staleEpoch + "; "
                    + (options.dryRun() ? "would be rewritten" : "rewritten") + " with epoch " + epoch);
        }
        if (refused) {
            return RecoveryPlan.refused(
                    new RecoveryScan.Outcome(report(before, before, true), List.of(), -1, -1, epoch));
        }

        SegmentPlan last = plans.isEmpty() ? null : plans.get(plans.size() - 1);
        long logEnd;
        if (last == null) {
            logEnd = Math.max(0, Math.max(durable.logStart(), durable.highWatermark()));
        } else {
            logEnd = last.nextOffset >= 0 ? last.nextOffset : last.name.baseOffset();
        }
        OffsetGaps.Gap tail =
                OffsetGaps.missingTail(dir, durable.manifest(), durable.logStart(), last, logEnd, epochsFound);
        if (tail != null && tail.what() == null) {
            actions.add(String.format(
                    "%s: log end %d is below the highWatermark %d; a salvage recorded the gap, the log resumes at %d",
                    dir, logEnd, tail.to(), tail.to()));
            logEnd = tail.to();
        } else if (tail != null && !forced) {
            damage.add(tail.line());
            return RecoveryPlan.refused(
                    new RecoveryScan.Outcome(report(before, before, true), List.of(), -1, -1, epoch));
        } else if (tail != null && options.onDamage() == RecoveryOptions.DamagePolicy.SALVAGE) {
            // Offsets below an fsynced high watermark may have been read by consumers: never hand them out again
            // (--force --truncate cuts there instead, as it cuts at any damage).
            // The log resumes in a new, empty segment there, so that every tool reads the same log end from the files.
            repair.acceptGap(last, tail.from(), tail.to(), tail.what());
            SegmentPlan resumed = new SegmentPlan(dir, SegmentName.of(epoch, tail.to()), 0);
            resumed.create = true;
            resumed.entries = new ArrayList<>();
            plans.add(resumed);
            last = resumed;
            logEnd = tail.to();
            actions.add(
                    String.format("%s: created, empty: the log resumes at the highWatermark %d", resumed.log, logEnd));
        }
        if (durable.logStart() > logEnd) {
            // An acknowledged DeleteRecords (durable in the manifest) outran data that never reached the
            // disk (acks=1, lost in the crash). Log start must not move back, nor may the offsets below
            // it be handed out again: the log resumes, empty, at log start (as Kafka does).
            actions.add(String.format(
                    "%s: log end %d is below the durable log start %d; the log resumes at %d",
                    dir, logEnd, durable.logStart(), durable.logStart()));
            logEnd = durable.logStart();
        }
        long logStart = plans.isEmpty() ? logEnd : plans.get(0).name.baseOffset();
        if (durable.logStart() >= 0) {
            logStart = Math.max(logStart, Math.min(durable.logStart(), logEnd));
        }
        LogStart logStartCopy =
                durable.copyNeedsWrite(logStart) ? new LogStart(LogStart.VERSION, logStart, logEnd) : null;
        Manifest after = new Manifest(epoch, logEnd, logStart);
        boolean fresh = before == null && plans.isEmpty();
        // Only moved offsets are a repair worth a line: an epoch raised to options.leaderEpoch() is a new owner
        // taking over (the manifest is still rewritten, by apply), which used to be reported as "10 -> 10".
        boolean offsetsMoved =
                before == null || before.highWatermark() != logEnd || before.logStartOffset() != logStart;
        if (offsetsMoved && !fresh) {
            actions.add(
                    before == null
                            ? String.format(
                                    "%s: created (highWatermark %d, logStartOffset %d)",
                                    Manifest.FILE_NAME, logEnd, logStart)
                            : String.format(
                                    "%s: highWatermark %d -> %d, logStartOffset %d -> %d",
                                    Manifest.FILE_NAME,
                                    before.highWatermark(),
                                    logEnd,
                                    before.logStartOffset(),
                                    logStart));
        }
        for (SegmentPlan p : plans) {
            if (p.indexDiffers()) {
                indexesRebuilt++;
                actions.add(p.index + ": "
                        + (p.rewrite
                                ? "rewritten for the salvaged log"
                                : p.existingEntries == null ? "missing, rebuilt" : "rewritten")
                        + " with " + p.entries.size() + " entries");
            }
        }
        // The checkpoint may only claim what the producer-state and txn snapshots already cover (replay
        // resumes from it), and this scan cannot write those snapshots: so it never moves the checkpoint
        // forward (Partition.open does, after writing the snapshots). It only pulls it back when the log
        // was cut below it, so that it never points into bytes written after the cut.
        // A salvaged segment's bytes moved after its first damaged range: the checkpoint may claim only what lies
        // before it.
        long unmoved = last == null ? 0 : last.rewrite ? last.unmovedEnd : last.validEnd;
        RecoveryCheckpoint newCheckpoint = checkpoint != null
                        && last != null
                        && checkpoint.segmentBase() == last.name.baseOffset()
                        && checkpoint.bytePos() > unmoved
                ? new RecoveryCheckpoint(
                        last.name.baseOffset(), unmoved, last.rewrite ? last.offsetAtUnmovedEnd : logEnd)
                : null;

        List<SegmentName> names = new ArrayList<>();
        plans.forEach(p -> names.add(p.name));
        RecoveryScan.Outcome outcome =
                new RecoveryScan.Outcome(report(before, after, false), names, logEnd, logStart, epoch);
        return new RecoveryPlan(
                outcome,
                new RecoveryPlan.Writes(
                        dir,
                        plans,
                        removals,
                        repair.quarantine(),
                        logStartCopy,
                        after,
                        before,
                        newCheckpoint,
                        checkpoint));
    }

    private RecoveryReport report(Manifest before, Manifest after, boolean refused) {
        return new RecoveryReport(
                dir,
                scans == null ? 0 : scans.segmentsScanned,
                scans == null ? 0 : scans.bytesScanned,
                bytesTruncated + (scans == null ? 0 : scans.bytesTruncated),
                batchesDropped,
                recordsDropped,
                segmentsRemoved + listing.segmentsRemoved,
                indexesRebuilt,
                before,
                after,
                damage,
                refused ? List.of() : actions,
                refused);
    }

    private <T> T readState(Path file, Class<T> type) {
        try {
            return StateJson.read(file, type).orElse(null);
        } catch (StorageException e) {
            actions.add(file + ": unreadable (" + e.getMessage() + "), ignored and rewritten");
            return null;
        }
    }
}
