package io.kaas.storage.state;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import java.nio.file.Path;
import java.util.List;

/**
 * A partition directory's state files: the producer-state and txn snapshots, the recovery checkpoint
 * and the manifest. Every write is atomic and durable ({@link StateJson#write}).
 *
 * <p>The one ordering rule lives here: <b>the snapshots before the checkpoint</b>. Recovery replays
 * only the log after the checkpoint (within the active segment) onto the snapshots, so a checkpoint
 * that moved ahead of them would make the next open forget producers — a retried batch would be
 * written twice, a producer's next sequence refused. Partition roll, the committer's checkpoint
 * refresh, clean close and recovery all write through {@link #writeCheckpoint}.
 */
public final class PartitionStateFiles {
    private final Path dir;

    public PartitionStateFiles(Path partitionDir) {
        this.dir = partitionDir;
    }

    /** The producer-state snapshot, or an empty table when there is none. */
    public ProducerStateTable loadProducers() {
        return ProducerStateTable.from(StateJson.read(dir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class)
                .orElse(new ProducerStateSnapshot(ProducerStateSnapshot.VERSION, List.of())));
    }

    /** The txn-index snapshot, or an empty index when there is none. */
    public TxnIndex loadTxns() {
        return TxnIndex.from(StateJson.read(dir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class)
                .orElse(new TxnIndexSnapshot(TxnIndexSnapshot.VERSION, List.of(), List.of())));
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

    public void writeManifest(Manifest manifest) {
        StateJson.write(dir.resolve(Manifest.FILE_NAME), manifest);
    }
}
