package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import io.kaas.storage.segment.ScannedBatch;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The one recovery scan: what a partition open runs, and what {@code kaas recover} drives offline.
 * It works in two passes so that a refusal or a dry run changes nothing:
 * <ol>
 *   <li><b>Analyse</b> (read-only): list segments (of two with one base offset the higher epoch wins);
 *       trust closed segments whose index is sane, rebuild-scan the others; scan the active segment
 *       from the recovery checkpoint when it names it, else from byte 0, checking CRC and offsets;
 *       classify where the valid part ends: clean, torn tail (short, garbage or zero-filled, past the
 *       last durable point), or damage ({@link DamageRepair}: in durable bytes, or with a CRC-valid
 *       batch continuing the log after it), and plan what the damage policy does.</li>
 *   <li><b>Apply</b>: remove stale files, cut torn tails, rewrite indexes that differ from the log,
 *       fsync the log, reconcile manifest.json (the log is authoritative), and pull the checkpoint
 *       back if the log was cut below it (moving it forward is the opener's job, once the producer
 *       state the scan replayed is written).</li>
 * </ol>
 * After a clean close the checkpoint sits at EOF and the active segment's scan reads zero bytes.
 */
public final class RecoveryScan {
    /** Sees every batch kept in the scanned part of the active segment (idempotence and txn replay). */
    @FunctionalInterface
    public interface TailVisitor {
        void visit(ScannedBatch batch);
    }

    /** The report plus what a partition open needs. */
    public record Outcome(
            RecoveryReport report, List<SegmentName> segments, long logEndOffset, long logStartOffset, int epoch) {}

    private final Path dir;
    private final RecoveryOptions options;
    private final TailVisitor visitor;
    private final List<String> actions = new ArrayList<>();
    private final List<String> damage = new ArrayList<>();
    private final List<Path> removals = new ArrayList<>();
    private long bytesScanned;
    private int segmentsScanned;
    private long bytesTruncated;
    private long batchesDropped;
    private long recordsDropped;
    private int indexesRebuilt;
    private int segmentsRemoved;
    /** log-start.json to write (missing, unreadable or behind the recovered log start), or null. */
    private LogStart logStartCopy;
    /** What the fields outside the CRC are checked against: the checkpoint and epochs as found. */
    private RecoveryCheckpoint checkpointFound;

    private LeaderEpochCheckpoint epochsFound = LeaderEpochCheckpoint.EMPTY;
    /** Bytes the scan cuts or removes outside the damage verdict (late writes, torn tails): saved too when forced. */
    private record Cut(Path file, long start, long end, String why, boolean wholeFile) {}

    private final List<Cut> cuts = new ArrayList<>();
    /** The highest log start a sound durable copy records (where an empty log resumes), -1 when none does. */
    private long durableLogStart = -1;

    private RecoveryScan(Path dir, RecoveryOptions options, TailVisitor visitor) {
        this.dir = dir;
        this.options = options;
        this.visitor = visitor;
    }

    /** Offline recovery (what {@code kaas recover} runs): the scan plus {@link #recoverState}. */
    public static RecoveryReport run(Path partitionDir, RecoveryOptions options) {
        return recoverState(partitionDir, options).outcome().report();
    }

    /** A recovered partition's log outcome and its idempotence and transaction state, replayed to the log end. */
    public record RecoveredState(Outcome outcome, ProducerStateTable producers, TxnIndex txns) {}

    /**
     * What a partition open runs, and offline recovery too, so they leave the same files: load the
     * producer-state and txn snapshots, scan (replaying the scanned tail onto them), forget what lies
     * past the recovered log end, and — when a tail was scanned, or derivable state was rebuilt
     * ({@link DerivedStateRebuild}), and this is no dry run — write the snapshots, then the checkpoint
     * at EOF ({@link PartitionStateFiles#writeCheckpoint}).
     */
    public static RecoveredState recoverState(Path partitionDir, RecoveryOptions options) {
        PartitionStateFiles stateFiles = new PartitionStateFiles(partitionDir);
        // Derivable state that cannot be read, or disagrees with the log, is rebuilt from it, never fatal.
        DerivedStateRebuild derived = DerivedStateRebuild.beforeScan(partitionDir, options.dryRun());
        ProducerStateTable producers = derived.producers();
        TxnIndex txns = derived.txns();
        Outcome outcome = scan(partitionDir, options, derived.tailReplay());
        if (outcome.report().refused()) {
            return new RecoveredState(outcome, producers, txns);
        }
        boolean stateRewritten;
        try {
            stateRewritten = derived.afterScan(outcome.segments(), outcome.logEndOffset())
                    || outcome.report().bytesScanned() > 0;
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, partitionDir + ": cannot replay the log: " + e.getMessage(), e);
        }
        outcome = new Outcome(
                outcome.report().withActions(derived.actions()),
                outcome.segments(),
                outcome.logEndOffset(),
                outcome.logStartOffset(),
                outcome.epoch());
        if (!options.dryRun() && stateRewritten && !outcome.segments().isEmpty()) {
            SegmentName active = outcome.segments().get(outcome.segments().size() - 1);
            try {
                long end = Files.size(partitionDir.resolve(active.logFileName()));
                stateFiles.writeCheckpoint(
                        producers, txns, new RecoveryCheckpoint(active.baseOffset(), end, outcome.logEndOffset()));
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO,
                        partitionDir + ": cannot write recovered state: " + e.getMessage(),
                        e);
            }
        }
        return new RecoveredState(outcome, producers, txns);
    }

    public static Outcome scan(Path partitionDir, RecoveryOptions options, TailVisitor visitor) {
        try {
            return new RecoveryScan(partitionDir, options, visitor).execute();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, partitionDir + ": recovery failed: " + e.getMessage(), e);
        }
    }

    private Outcome execute() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new StorageException(StorageException.Kind.IO, dir + ": not a directory");
        }
        // A damaged topic config refuses every partition of the topic, whatever the policy: its cleanup policy
        // is not derivable, and --force only removes log bytes, which cannot repair it.
        Path topicDir = dir.toAbsolutePath().getParent();
        Optional<String> configDamage =
                topicDir == null ? Optional.empty() : io.kaas.storage.format.TopicConfigFile.damageOf(topicDir);
        if (configDamage.isPresent()) {
            damage.add(configDamage.get());
            return new Outcome(report(null, null, true), List.of(), -1, -1, options.leaderEpoch());
        }
        // The log start's durable copies first: an impossible one is damage, refused before anything changes.
        DurableLogStart durable = DurableLogStart.read(dir);
        durableLogStart = durable.logStart();
        if (!durable.impossible().isEmpty() && options.onDamage() == RecoveryOptions.DamagePolicy.REFUSE) {
            damage.addAll(durable.damage());
            return new Outcome(report(null, null, true), List.of(), -1, -1, options.leaderEpoch());
        }
        // Forced: an impossible copy is ignored like an unreadable one, and rewritten; the line keeps what it said.
        durable.damage().forEach(d -> actions.add(d + "; ignored (--force) and rewritten"));
        actions.addAll(durable.actions());
        Manifest before = durable.manifest();
        durableLogStart = durable.logStart();
        // A cleaner swap interrupted by a crash is finished (committed) or discarded (not) before the
        // segments are listed: its .cleaned files are not segments, its intent names what it replaces.
        actions.addAll(CleanerSwap.recover(dir, options.dryRun()));
        RecoveryCheckpoint checkpoint = readState(dir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class);
        List<SegmentPlan> plans = listSegments();
        LeaderEpochCheckpoint epochs =
                readState(dir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class);
        // Only a checkpoint that agrees with the segment names fences late writes: one that disagrees is rebuilt
        // from the names (DerivedStateRebuild), and a derivable file, damaged or rebuilt from names a damaged
        // copy may carry, never removes CRC-valid batches without --force.
        if (epochs != null && DerivedStateRebuild.trustedEpochs(dir, epochs) == epochs) {
            fenceLateWrites(plans, epochs);
            epochsFound = epochs;
        }
        checkpoint = plausibleOrNull(checkpoint, plans);
        checkpointFound = checkpoint;
        if (checkpoint != null
                && !plans.isEmpty()
                && checkpoint.segmentBase() > plans.get(plans.size() - 1).name.baseOffset()) {
            // One naming an older segment is normal after a roll (ignored, rewritten quietly); past the active one, no
            // writer leaves it.
            actions.add(dir.resolve(RecoveryCheckpoint.FILE_NAME) + ": segmentBase " + checkpoint.segmentBase()
                    + " names no segment; ignored and rewritten");
        }

        for (int i = 0; i < plans.size(); i++) {
            boolean active = i == plans.size() - 1;
            SegmentPlan p = plans.get(i);
            loadIndex(p);
            if (active) {
                analyseActive(p, checkpoint);
            } else if (options.scanAllSegments()
                    || p.rebuildIndex
                    || p.offsetLimit != Long.MAX_VALUE
                    || indexReachesNext(p, plans.get(i + 1))
                    || !OffsetGaps.lastEntryFramesToEnd(p)) {
                scanWhole(p, false);
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
            for (Cut c : cuts) {
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
            return new Outcome(report(before, before, true), List.of(), -1, -1, epoch);
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
            return new Outcome(report(before, before, true), List.of(), -1, -1, epoch);
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
        logStartCopy = durable.copyNeedsWrite(logStart) ? new LogStart(LogStart.VERSION, logStart, logEnd) : null;
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
            if (indexDiffers(p)) {
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

        if (!options.dryRun()) {
            apply(plans, after, before, newCheckpoint, checkpoint, repair);
        }
        List<SegmentName> names = new ArrayList<>();
        plans.forEach(p -> names.add(p.name));
        return new Outcome(report(before, after, false), names, logEnd, logStart, epoch);
    }

    private RecoveryReport report(Manifest before, Manifest after, boolean refused) {
        return new RecoveryReport(
                dir,
                segmentsScanned,
                bytesScanned,
                bytesTruncated,
                batchesDropped,
                recordsDropped,
                segmentsRemoved,
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

    private List<SegmentPlan> listSegments() throws IOException {
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
    private void fenceLateWrites(List<SegmentPlan> plans, LeaderEpochCheckpoint epochs) {
        for (SegmentPlan p : new ArrayList<>(plans)) {
            long end = epochs.endOf(p.name.epoch());
            if (!p.name.apacheStyle() && p.name.baseOffset() >= end) {
                plans.remove(p);
                removals.add(p.log);
                removals.add(p.index);
                segmentsRemoved++;
                cuts.add(new Cut(p.log, 0, p.size, "written by a fenced ex-leader after a later epoch began", true));
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

    private void loadIndex(SegmentPlan p) throws IOException {
        try {
            p.existingEntries = IndexFileFormat.readAll(p.index, p.name.baseOffset());
        } catch (NoSuchFileException e) {
            p.existingEntries = null;
            p.rebuildIndex = true;
            return;
        }
        Optional<String> problem = IndexFileFormat.sanityCheck(p.index, p.existingEntries, p.size, p.name.baseOffset());
        p.partialIndexEntry = Files.size(p.index) % IndexFileFormat.ENTRY_SIZE != 0;
        if (problem.isPresent() || p.partialIndexEntry) {
            p.rebuildIndex = true;
            actions.add(problem.orElse(p.index + ": size is not a multiple of 8") + "; rebuilding");
        }
    }

    /**
     * The checkpoint, or null when what it says of the active segment cannot be true of any log (a byte past
     * the file's end, an offset below the segment's base, a log end other than the base at byte 0, or none at
     * a later byte): a damaged derivable hint is no evidence of what was fsynced. Ignored, it costs a scan of the
     * active segment from byte 0, and is rewritten after it.
     */
    private RecoveryCheckpoint plausibleOrNull(RecoveryCheckpoint cp, List<SegmentPlan> plans) {
        if (cp == null || plans.isEmpty()) {
            return cp;
        }
        SegmentPlan active = plans.get(plans.size() - 1);
        long base = active.name.baseOffset();
        if (cp.segmentBase() != base) {
            return cp; // names another segment: not used as the active segment's start, nor as a landmark
        }
        boolean plausible = cp.bytePos() >= 0
                && cp.bytePos() <= active.size
                && (cp.bytePos() == 0 ? cp.highWatermark() == base : cp.highWatermark() > base);
        if (plausible && !contradictedByTheLog(active, cp)) {
            return cp;
        }
        actions.add(String.format(
                "%s: bytePos %d, offset %d cannot describe %s (%d bytes, base offset %d); ignored, the"
                        + " active segment was scanned from byte 0 and the checkpoint is rewritten",
                dir.resolve(RecoveryCheckpoint.FILE_NAME),
                cp.bytePos(),
                cp.highWatermark(),
                active.log.getFileName(),
                active.size,
                base));
        return null;
    }

    /**
     * The batch ending at the checkpoint's byte continues the one before it (its base offset, outside the CRC, is
     * backed by its neighbour) but ends at another offset than the checkpoint says: the checkpoint is the one
     * wrong. Walks batch heads only, from the index's last entry at or below that byte (from byte 0 if that
     * fails). Where the log does not back the batch (a jump, the segment's first batch), the checkpoint stays
     * the evidence against it.
     */
    private boolean contradictedByTheLog(SegmentPlan active, RecoveryCheckpoint cp) {
        if (cp.bytePos() == 0) {
            return false;
        }
        long from = 0;
        try {
            for (IndexEntry e : IndexFileFormat.readAll(active.index, active.name.baseOffset())) {
                if (e.position() < cp.bytePos()) {
                    from = Math.max(from, e.position());
                }
            }
        } catch (IOException | RuntimeException e) {
            from = 0;
        }
        try (FileChannel ch = FileChannel.open(active.log, StandardOpenOption.READ)) {
            for (long start : from > 0 ? new long[] {from, 0} : new long[] {0}) {
                io.kaas.storage.segment.HeaderCursor batches =
                        new io.kaas.storage.segment.HeaderCursor(ch, start, cp.bytePos());
                long before = -1;
                long lastBase = -1;
                long lastNext = -1;
                while (batches.next() == io.kaas.storage.segment.HeaderCursor.Framing.BATCH) {
                    before = lastNext;
                    lastBase = batches.baseOffset();
                    lastNext = batches.nextOffset();
                }
                boolean neighbourSeen = before >= 0 || start == 0;
                if (batches.framing() == io.kaas.storage.segment.HeaderCursor.Framing.END
                        && lastNext >= 0
                        && neighbourSeen) {
                    return lastNext != cp.highWatermark() && before >= 0 && lastBase == before;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * A closed segment's index names an offset at or past the next segment's base: no log can be so, so the index is
     * not sane and the segment is scanned (the log, not a derivable index, is what overlap damage is judged on).
     */
    /** Whether the index's last entry is past the segment's next one: a damaged hint, so the segment is scanned. */
    private static boolean indexReachesNext(SegmentPlan p, SegmentPlan next) {
        IndexEntry[] entries = p.existingEntries;
        return entries != null && entries.length > 0 && entries[entries.length - 1].offset() >= next.name.baseOffset();
    }

    private void analyseActive(SegmentPlan p, RecoveryCheckpoint cp) throws IOException {
        long start = 0;
        long startOffset = p.name.baseOffset();
        List<IndexEntry> kept = new ArrayList<>();
        String disagreement = cp == null || cp.segmentBase() != p.name.baseOffset()
                ? null
                : DerivedStateRebuild.checkpointDisagreement(cp, p.log, p.size, durableLogStart);
        if (disagreement != null) {
            // A derivable hint that disagrees with the log must never decide where it ends: scanned whole, rewritten.
            actions.add(dir.resolve(RecoveryCheckpoint.FILE_NAME) + ": " + disagreement
                    + "; the active segment is scanned" + " from byte 0 and the checkpoint rewritten");
        }
        if (disagreement == null
                && options.useCheckpoint()
                && cp != null
                && !p.rebuildIndex
                && p.offsetLimit == Long.MAX_VALUE
                && cp.segmentBase() == p.name.baseOffset()
                && cp.bytePos() >= 0
                && cp.bytePos() <= p.size
                && cp.highWatermark() >= p.name.baseOffset()) {
            start = cp.bytePos();
            startOffset = cp.highWatermark();
            for (IndexEntry e : p.existingEntries) {
                if (e.position() < start) {
                    kept.add(e);
                }
            }
            if (start > 0) {
                p.nextOffset = startOffset;
            }
        }
        scan(p, start, startOffset, kept, true);
        if (start > 0 && p.stop != null && p.validEnd == start) {
            // The first batch at the checkpoint is bad: a torn write just past it, or a checkpoint that disagrees
            // with the log (not a batch boundary, the wrong offset). A derivable hint must never cut valid
            // batches, so the segment is scanned whole, as without a checkpoint (same end for a real torn tail).
            p.nextOffset = -1;
            scanWhole(p, true);
            if (p.validEnd != start) {
                actions.add(String.format(
                        "%s: bytePos %d (offset %d) disagrees with the log; the active segment was scanned"
                                + " from byte 0 and the checkpoint is rewritten",
                        dir.resolve(RecoveryCheckpoint.FILE_NAME), start, startOffset));
            }
        }
    }

    private void scanWhole(SegmentPlan p, boolean visit) throws IOException {
        scan(p, 0, p.name.baseOffset(), new ArrayList<>(), visit);
    }

    private void scan(SegmentPlan p, long start, long startOffset, List<IndexEntry> entries, boolean visit)
            throws IOException {
        segmentsScanned += start < p.size ? 1 : 0;
        // Only the active segment (the one scan that visits): a closed segment the checkpoint still names
        // may have been cleaned since, moving its batches.
        RecoveryCheckpoint cp = checkpointFound;
        // A checkpoint at the end of the file naming the durable log start is where a purge that outran
        // unsynced data resumed the log (see execute): it says nothing of the batch before it.
        boolean resumedAtLogStart = cp != null && cp.bytePos() == p.size && cp.highWatermark() == durableLogStart;
        boolean landmark = visit
                && cp != null
                && cp.segmentBase() == p.name.baseOffset()
                && cp.bytePos() > start
                && cp.bytePos() <= p.size
                && !resumedAtLogStart;
        SegmentLogScan.Neighbours neighbours = new SegmentLogScan.Neighbours(
                landmark ? cp.bytePos() : -1, landmark ? cp.highWatermark() : -1, epochsFound);
        SegmentLogScan.Result r = SegmentLogScan.scan(
                p.log,
                start,
                p.size,
                startOffset,
                p.name.baseOffset(),
                options.indexPolicy(),
                entries,
                visit ? visitor : null,
                p.offsetLimit,
                neighbours);
        // The valid batches reach exactly where the next epoch began: whatever follows (whole batches, a
        // torn one, zeros and then batches where the file was cut under a stopped writer) is late writes.
        long reached = r.nextOffset() >= 0 ? r.nextOffset() : startOffset;
        boolean fenceCut = p.offsetLimit != Long.MAX_VALUE
                && r.validEnd() < p.size
                && (r.stop() == null || reached == p.offsetLimit);
        if (fenceCut) {
            r = new SegmentLogScan.Result(r.validEnd(), r.nextOffset(), null, false, false, r.bytesRead());
            bytesTruncated += p.size - r.validEnd();
            cuts.add(new Cut(
                    p.log, r.validEnd(), p.size, "written by a fenced ex-leader after a later epoch began", false));
            actions.add(String.format(
                    "%s: truncated %d bytes at byte %d: written by epoch %d at or past offset %d,"
                            + " where a later leader epoch began (a fenced ex-leader's late writes)",
                    p.log, p.size - r.validEnd(), r.validEnd(), p.name.epoch(), p.offsetLimit));
        }
        if (r.nextOffset() >= 0) {
            p.nextOffset = r.nextOffset();
        }
        p.validEnd = r.validEnd();
        p.stop = r.stop();
        p.zeroTail = r.zeroTail();
        p.damaged = r.damaged();
        p.bad = r.bad();
        p.salvageNext = r.salvageNext();
        p.salvageEntries = r.salvageEntries();
        p.scanned = r.bytesRead();
        bytesScanned += r.bytesRead();
        p.entries = entries;
    }

    private void apply(
            List<SegmentPlan> plans,
            Manifest after,
            Manifest before,
            RecoveryCheckpoint newCp,
            RecoveryCheckpoint oldCp,
            DamageRepair repair)
            throws IOException {
        repair.writeQuarantine();
        boolean dirChanged = false;
        for (Path f : removals) {
            dirChanged |= Files.deleteIfExists(f);
        }
        for (int i = 0; i < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            boolean last = i == plans.size() - 1;
            if (p.create) {
                try (FileChannel ch =
                        FileChannel.open(p.log, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                dirChanged = true;
            }
            if (p.rewrite) {
                DamageRepair.rewrite(p);
            }
            // A closed segment is cut only when it holds a fenced ex-leader's late writes (fenceLateWrites).
            if ((last && (p.validEnd < p.size || p.scanned > 0)) || (!last && p.stop == null && p.validEnd < p.size)) {
                try (FileChannel ch = FileChannel.open(p.log, StandardOpenOption.WRITE)) {
                    if (p.validEnd < p.size) {
                        ch.truncate(p.validEnd);
                    }
                    // The checkpoint written below claims [0, validEnd) is durable: make it so.
                    ch.force(true);
                }
            }
            if (indexDiffers(p)) {
                IndexFileFormat.writeAtomically(p.index, p.name.baseOffset(), p.entries);
            }
        }
        if (dirChanged) {
            AtomicFile.fsyncDirectory(dir);
        }
        if (logStartCopy != null) {
            StateJson.write(
                    dir.resolve(LogStart.FILE_NAME), logStartCopy); // before the manifest, as every log start move
        }
        if (!after.equals(before)) {
            StateJson.write(dir.resolve(Manifest.FILE_NAME), after);
        }
        if (newCp != null && !newCp.equals(oldCp)) {
            StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), newCp);
        }
    }

    private static boolean indexDiffers(SegmentPlan p) {
        // A partial trailing entry left in place would later be cut and overwritten without an fsync,
        // and a power cut can then mix its old bytes with the new entry's into a wrong entry.
        return p.existingEntries == null || p.partialIndexEntry || !p.entries.equals(Arrays.asList(p.existingEntries));
    }
}
