package io.kaas.migration;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.transaction.TransactionCoordinatorRecordSerde;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;

/**
 * The transactional ids of {@code __transaction_state}, decoded with Apache's
 * {@link TransactionCoordinatorRecordSerde}: the last value per id (a tombstone removes it).
 */
public record TransactionStates(Map<String, Txn> byId) {
    /** One transactional id's last state. */
    public record Txn(
            String transactionalId,
            long producerId,
            short producerEpoch,
            TransactionState state,
            List<String> partitions) {
        /** Whether a transaction was in flight when the broker stopped: its markers were not (all) written. */
        public boolean open() {
            return state == TransactionState.ONGOING
                    || state == TransactionState.PREPARE_COMMIT
                    || state == TransactionState.PREPARE_ABORT
                    || state == TransactionState.PREPARE_EPOCH_FENCE;
        }

        /** An open transaction whose outcome the coordinator had decided: commit. Every other open one aborts. */
        public boolean decidedCommit() {
            return state == TransactionState.PREPARE_COMMIT;
        }
    }

    public TransactionStates {
        byId = Collections.unmodifiableMap(new TreeMap<>(byId));
    }

    public List<Txn> open() {
        return byId.values().stream().filter(Txn::open).toList();
    }

    /** The open transaction of {@code producerId}, if the coordinator recorded one. */
    public java.util.Optional<Txn> openOf(long producerId) {
        return byId.values().stream()
                .filter(t -> t.open() && t.producerId() == producerId)
                .findFirst();
    }

    public long maxProducerId() {
        return byId.values().stream().mapToLong(Txn::producerId).max().orElse(-1);
    }

    public static TransactionStates read(List<Path> partitionDirs) {
        TransactionCoordinatorRecordSerde serde = new TransactionCoordinatorRecordSerde();
        Map<String, Txn> out = new TreeMap<>();
        for (Path dir : partitionDirs) {
            ApacheBatches.forEach(dir, (file, batch) -> {
                if (batch.isControlBatch()) {
                    return;
                }
                for (Record r : batch) {
                    if (!r.hasKey()) {
                        continue;
                    }
                    CoordinatorRecord record = serde.deserialize(r.key(), r.hasValue() ? r.value() : null);
                    if (!(record.key() instanceof TransactionLogKey k)) {
                        continue;
                    }
                    if (record.value() == null) {
                        out.remove(k.transactionalId());
                        continue;
                    }
                    TransactionLogValue v = (TransactionLogValue) record.value().message();
                    List<String> partitions = v.transactionPartitions() == null
                            ? List.of()
                            : v.transactionPartitions().stream()
                                    .flatMap(p -> p.partitionIds().stream().map(n -> p.topic() + "-" + n))
                                    .toList();
                    out.put(
                            k.transactionalId(),
                            new Txn(
                                    k.transactionalId(),
                                    v.producerId(),
                                    v.producerEpoch(),
                                    TransactionState.fromId(v.transactionStatus()),
                                    partitions));
                }
            });
        }
        return new TransactionStates(out);
    }
}
