package io.kaas.broker.txn;

import io.kaas.cluster.CoordinatorSlots;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * The coordinator's durable state: {@code <data>/__cluster/txn_state/slot-NN.json}, one file per slot
 * holding every transactional id of that slot, replaced atomically ({@link StateJson#write}: tmp +
 * fsync + rename + directory fsync) on every change, before the change is answered. Slots are Apache's
 * {@code __transaction_state} partitions (50, {@code Utils.abs(hashCode) % 50}), so one write never
 * rewrites every transactional id. Callers serialise writes of one slot.
 */
public final class TransactionStateStore {
    public static final int SLOTS = CoordinatorSlots.TRANSACTION_SLOTS;
    public static final int VERSION = 1;

    /** A slot file's content. */
    public record SlotFile(int version, List<TransactionRecord> transactions) {}

    private final Path clusterDir;

    public TransactionStateStore(Path clusterDir) {
        this.clusterDir = clusterDir;
        Path dir = ClusterDir.txnState(clusterDir);
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create: " + e.getMessage(), e);
        }
    }

    /** Apache's {@code TransactionStateManager.partitionFor}. */
    public static int slotFor(String transactionalId) {
        return Utils.abs(transactionalId.hashCode()) % SLOTS;
    }

    /** The transactional ids of one slot's file. */
    public List<TransactionRecord> load(int slot) {
        return StateJson.read(ClusterDir.txnStateSlot(clusterDir, slot), SlotFile.class)
                .map(f -> List.copyOf(f.transactions()))
                .orElse(List.of());
    }

    /** Every transactional id of every slot file. */
    public List<TransactionRecord> loadAll() {
        List<TransactionRecord> out = new ArrayList<>();
        for (int slot = 0; slot < SLOTS; slot++) {
            StateJson.read(ClusterDir.txnStateSlot(clusterDir, slot), SlotFile.class)
                    .ifPresent(f -> out.addAll(f.transactions()));
        }
        return out;
    }

    public void write(int slot, Collection<TransactionRecord> transactions) {
        StateJson.write(
                ClusterDir.txnStateSlot(clusterDir, slot), new SlotFile(VERSION, new ArrayList<>(transactions)));
    }
}
