package io.kaas.storage.recovery;

import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.ScannedBatch;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.PartitionStateFiles;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The one recovery scan: what a partition open runs, and what {@code kaas recover} drives offline.
 * Analyse, then apply, by type, so that a refusal or a dry run changes nothing:
 * <ol>
 *   <li><b>Analyse</b> ({@link LogAnalysis}, read-only): list segments ({@link SegmentListing}); trust closed
 *       segments whose index is sane, scan the others; scan the active segment from the recovery checkpoint
 *       when it may be trusted ({@link CheckpointHint}), else from byte 0 ({@link SegmentScans}); classify where
 *       the valid part ends: clean, torn tail (short, garbage or zero-filled, past the last durable point), or
 *       damage ({@link DamageRepair}: in durable bytes, or with a CRC-valid batch after it), and plan what the
 *       damage policy does. It returns a {@link RecoveryPlan}.</li>
 *   <li><b>Apply</b> ({@link PlanApply}, the one writer, never on a dry run or a refusal): quarantine, remove
 *       stale files, rewrite salvaged segments, cut torn tails, rewrite indexes that differ from the log, fsync
 *       the log, reconcile manifest.json (the log is authoritative), and pull the checkpoint back if the log was
 *       cut below it (moving it forward is the opener's job, once the producer state the scan replayed is
 *       written).</li>
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

    /**
     * The log scan alone: analyse ({@link LogAnalysis}, read-only, returns the plan), then, unless refused or a dry
     * run, apply ({@link PlanApply}, the one writer).
     */
    public static Outcome scan(Path partitionDir, RecoveryOptions options, TailVisitor visitor) {
        try {
            RecoveryPlan plan = new LogAnalysis(partitionDir, options, visitor).analyse();
            if (!options.dryRun() && plan.writes() != null) {
                PlanApply.apply(plan.writes());
            }
            return plan.outcome();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, partitionDir + ": recovery failed: " + e.getMessage(), e);
        }
    }
}
