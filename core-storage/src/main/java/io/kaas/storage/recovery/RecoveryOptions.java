package io.kaas.storage.recovery;

import io.kaas.storage.segment.IndexPolicy;

/**
 * How a {@link RecoveryScan} may act.
 *
 * @param dryRun        report what would change, change nothing
 * @param onDamage      what to do with damage (a bad batch in durable bytes, or with intact data after it)
 * @param indexPolicy   index interval for rebuilt indexes
 * @param useCheckpoint resume from recovery-checkpoint.json when it names the active segment
 * @param leaderEpoch   epoch for a manifest created from nothing
 * @param scanAllSegments CRC-scan closed segments too (offline recover and verify), not only the active one
 */
public record RecoveryOptions(
        boolean dryRun,
        DamagePolicy onDamage,
        IndexPolicy indexPolicy,
        boolean useCheckpoint,
        int leaderEpoch,
        boolean scanAllSegments) {
    /** Open-time shape: closed segments are trusted unless their index is bad. */
    public RecoveryOptions(
            boolean dryRun, DamagePolicy onDamage, IndexPolicy indexPolicy, boolean useCheckpoint, int leaderEpoch) {
        this(dryRun, onDamage, indexPolicy, useCheckpoint, leaderEpoch, false);
    }

    public enum DamagePolicy {
        /** Report damage, change nothing in that partition (recover without --force; broker open). */
        REFUSE,
        /**
         * Remove only the damaged byte ranges, keeping every intact batch after them (an offset gap, as
         * compaction leaves), after saving them to the quarantine (recover --force).
         */
        SALVAGE,
        /** Truncate from the first damaged batch and remove later segments, after saving them to the quarantine (recover --force --truncate). */
        TRUNCATE
    }

    public static RecoveryOptions forOpen(IndexPolicy indexPolicy, int leaderEpoch) {
        return new RecoveryOptions(false, DamagePolicy.REFUSE, indexPolicy, true, leaderEpoch);
    }
}
