package io.kaas.storage;

import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.state.ProducerStateTable;
import io.kaas.storage.state.TxnIndex;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every producer a partition knows, as {@link ProducerStatus} records readers take without the partition
 * lock (DescribeProducers, the transaction coordinator's marker checks).
 *
 * <p>Written only under the partition lock: the append that changes a producer (a batch or a marker of
 * its own) replaces that producer's record. Each record is immutable, so a reader sees one producer
 * whole, as of some append; copying every producer on each append instead would cost the append path
 * O(producers). Producers are never forgotten while the partition is open (the table keeps them too).
 */
final class ProducerStatuses {
    private final ConcurrentHashMap<Long, ProducerStatus> byId = new ConcurrentHashMap<>();

    /** Every producer {@code producers} remembers at open, with its open transaction from {@code txns}. */
    static ProducerStatuses of(ProducerStateTable producers, TxnIndex txns) {
        ProducerStatuses out = new ProducerStatuses();
        for (ProducerStateSnapshot.Entry e : producers.snapshot().entries()) {
            out.update(e.producerId(), producers, txns);
        }
        return out;
    }

    /** After an append of {@code producerId}'s batch or marker. Holds the partition lock. */
    void update(long producerId, ProducerStateTable producers, TxnIndex txns) {
        ProducerStatus s = ProducerStatus.of(producerId, producers, txns);
        if (s != null) {
            byId.put(producerId, s);
        }
    }

    /** Every producer, by producer id. Lock-free. */
    List<ProducerStatus> list() {
        return byId.values().stream()
                .sorted(Comparator.comparingLong(ProducerStatus::producerId))
                .toList();
    }
}
