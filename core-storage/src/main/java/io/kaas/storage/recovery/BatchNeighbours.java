package io.kaas.storage.recovery;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.segment.ScannedBatch;

/**
 * What a {@link SegmentLogScan} checks the fields outside the CRC against, besides the previous batch: the batch ending at
 * {@code checkpointPos} must end at offset {@code checkpointOffset} (the recovery checkpoint; -1: none),
 * and no batch may carry a leader epoch newer than the one {@code epochs} puts in charge at its offset.
 */
record BatchNeighbours(long checkpointPos, long checkpointOffset, LeaderEpochCheckpoint epochs) {
    static final BatchNeighbours NONE = new BatchNeighbours(-1, -1, LeaderEpochCheckpoint.EMPTY);

    /** Whether there is anything to check against (the per-batch cost of a clean scan stays a branch). */
    boolean any() {
        return checkpointPos >= 0 || !epochs.epochs().isEmpty();
    }

    /**
     * Why {@code b}'s base offset or leader epoch disagrees with these neighbours, or null. A batch whose base
     * offset continues the one before it ({@code contiguous}) is not judged by the checkpoint: then the
     * checkpoint, a derivable hint, is what is wrong (it is rewritten), not the batch.
     */
    String disagreement(ScannedBatch b, boolean contiguous) {
        if (checkpointPos >= 0
                && !contiguous
                && b.nextPosition() == checkpointPos
                && b.header().nextOffset() != checkpointOffset) {
            return "base offset " + b.header().baseOffset() + " (outside the CRC) ends the batch at offset "
                    + (b.header().nextOffset() - 1) + ", but " + RecoveryCheckpoint.FILE_NAME
                    + " says the log ended at offset "
                    + (checkpointOffset - 1) + " at byte " + checkpointPos;
        }
        int inCharge = -1;
        for (LeaderEpochCheckpoint.Entry e : epochs.epochs()) {
            if (e.startOffset() <= b.header().baseOffset()) {
                inCharge = Math.max(inCharge, e.epoch());
            }
        }
        if (inCharge >= 0 && b.header().partitionLeaderEpoch() > inCharge) {
            return "partition leader epoch " + b.header().partitionLeaderEpoch()
                    + " (outside the CRC) is newer than epoch " + inCharge + ", which "
                    + LeaderEpochCheckpoint.FILE_NAME + " puts in charge at offset "
                    + b.header().baseOffset();
        }
        return null;
    }
}
