package io.kaas.storage.recovery;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.segment.IndexPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The analysis every offline tool runs on a partition before it reads it as a log or writes to it:
 * exactly what {@code kaas recover --dry-run} runs (the broker's recovery scan, read-only, damage refused,
 * every segment CRC-scanned, the checkpoint not trusted). A tool that finds the partition damaged by this
 * analysis refuses it ({@link #requireUndamaged}); {@code verify} reports the same damage lines; so no tool
 * can call a partition intact that {@code recover} would refuse, or rewrite damage into a new file.
 */
public final class PartitionAnalysis {
    private PartitionAnalysis() {}

    /** The dry-run options: {@code recover --dry-run}'s (no --fast), with the newest segment's epoch for a missing manifest. */
    public static RecoveryOptions dryRunOptions(Path partitionDir) {
        return new RecoveryOptions(
                true,
                RecoveryOptions.DamagePolicy.REFUSE,
                new IndexPolicy(IndexPolicy.DEFAULT_INTERVAL_BYTES),
                false,
                PartitionSegments.newestEpoch(PartitionSegments.list(partitionDir)),
                true);
    }

    /** Runs the analysis; changes no byte. @throws StorageException IO when the partition cannot be read */
    public static RecoveryScan.RecoveredState analyse(Path partitionDir) {
        return RecoveryScan.recoverState(partitionDir, dryRunOptions(partitionDir));
    }

    /**
     * The analysis, or a refusal when it finds damage: {@link PartitionDamagedException} carrying each damage line
     * ({@code FILE:BYTE: what}) and, last, {@code PARTITION: damaged, refused ...; NOTHING-DONE}.
     *
     * @param nothingDone what the caller did not do, e.g. "nothing was compacted"
     */
    public static RecoveryScan.RecoveredState requireUndamaged(Path partitionDir, String nothingDone) {
        RecoveryScan.RecoveredState state = analyse(partitionDir);
        if (state.outcome().report().refused()) {
            throw new PartitionDamagedException(
                    partitionDir, state.outcome().report().damage(), nothingDone);
        }
        return state;
    }

    /** A partition the analysis refused; {@link #getMessage()} is every line, one per line. */
    public static final class PartitionDamagedException extends StorageException {
        private final List<String> lines;

        PartitionDamagedException(Path partitionDir, List<String> damage, String nothingDone) {
            this(lines(partitionDir, damage, nothingDone));
        }

        private PartitionDamagedException(List<String> lines) {
            super(Kind.DAMAGED, String.join(System.lineSeparator(), lines));
            this.lines = lines;
        }

        private static List<String> lines(Path partitionDir, List<String> damage, String nothingDone) {
            List<String> out = new ArrayList<>(damage);
            out.add(partitionDir
                    + ": damaged, refused as `kaas recover` refuses it (see `kaas recover --dry-run`, repair with"
                    + " `kaas recover --force`); " + nothingDone);
            return List.copyOf(out);
        }

        /** The damage lines and the refusal, in order. */
        public List<String> lines() {
            return lines;
        }
    }
}
