package io.kaas.storage.state;

import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import java.nio.file.Path;

/**
 * A partition directory's state files: the producer-state and txn snapshots, the recovery checkpoint,
 * the manifest and log-start.json. (Loading the snapshots, and rebuilding one that cannot be read, is
 * {@link io.kaas.storage.recovery.DerivedStateRebuild}'s job.) Every write is atomic and durable ({@link StateJson#write}).
 *
 * <p>The one ordering rule lives here: <b>the snapshots before the checkpoint</b>. Recovery replays
 * only the log after the checkpoint (within the active segment) onto the snapshots, so a checkpoint
 * that moved ahead of them would make the next open forget producers — a retried batch would be
 * written twice, a producer's next sequence refused. Partition roll, the committer's checkpoint
 * refresh, clean close and recovery all write through {@link #writeCheckpoint}.
 *
 * <p>A second rule: <b>the log start is durable twice</b>. Every move of it goes through
 * {@link #advanceLogStart}, which writes {@code log-start.json} before the manifest, so one damaged
 * manifest cannot move the log start back (recovery takes the highest readable copy).
 */
public final class PartitionStateFiles {
    private final Path dir;

    public PartitionStateFiles(Path partitionDir) {
        this.dir = partitionDir;
    }

    /**
     * Both snapshots as of now. Alone at a segment roll: recovery will not replay the segment being
     * sealed, so the snapshots must cover it.
     */
    public void writeSnapshots(ProducerStateTable producers, TxnIndex txns) {
        StateJson.write(dir.resolve(ProducerStateSnapshot.FILE_NAME), producers.snapshot());
        StateJson.write(dir.resolve(TxnIndexSnapshot.FILE_NAME), txns.snapshot());
    }

    /** The snapshots, then {@code checkpoint}: never a checkpoint ahead of the snapshots. */
    public void writeCheckpoint(ProducerStateTable producers, TxnIndex txns, RecoveryCheckpoint checkpoint) {
        writeSnapshots(producers, txns);
        StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), checkpoint);
    }

    /**
     * A new log start, durably in both copies before the caller unlinks anything: {@code log-start.json}
     * first, then the manifest (a cut between them leaves the copy ahead, and recovery takes the higher).
     */
    public void advanceLogStart(Manifest manifest) {
        StateJson.write(dir.resolve(LogStart.FILE_NAME), LogStart.of(manifest));
        writeManifest(manifest);
    }

    public void writeManifest(Manifest manifest) {
        StateJson.write(dir.resolve(Manifest.FILE_NAME), manifest);
    }
}
