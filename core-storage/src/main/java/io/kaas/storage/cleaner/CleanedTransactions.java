package io.kaas.storage.cleaner;

import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.format.TxnIndexSnapshot;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Which transactional batches and markers one cleaning pass may drop, walked in offset order, by
 * Apache's rules (its {@code CleanedTransactionMetadata}):
 * <ul>
 *   <li>a data batch of an aborted transaction is dropped (its range comes from the txn index);</li>
 *   <li>an ABORT marker may go only once no batch of its transaction was seen in this pass: while the
 *       pass still drops its data, a reader could meet a half-cleaned copy and must see the marker;</li>
 *   <li>a COMMIT marker may go once no batch of its transaction is left before it;</li>
 *   <li>a control batch with no record left (already cleaned) may go.</li>
 * </ul>
 * "May go" is still subject to the delete horizon ({@link CleanerFilter}): a marker is first stamped
 * with one and removed on a later pass, as a tombstone is, so a consumer that read the data is given
 * delete.retention.ms to read the marker too.
 */
final class CleanedTransactions {
    private final ArrayDeque<TxnIndexSnapshot.Aborted> pending;
    /** Producer → whether a batch of its aborted transaction was seen in this pass. */
    private final Map<Long, Boolean> ongoingAborted = new HashMap<>();

    private final Set<Long> ongoingCommitted = new HashSet<>();
    private final CodecTripwire tripwire;

    /**
     * @param aborted aborted ranges overlapping the offsets this pass walks, any order
     * @param tripwire hears each marker record read
     */
    CleanedTransactions(List<TxnIndexSnapshot.Aborted> aborted, CodecTripwire tripwire) {
        this.tripwire = tripwire;
        this.pending = new ArrayDeque<>(aborted.stream()
                .distinct()
                .sorted(Comparator.comparingLong(TxnIndexSnapshot.Aborted::firstOffset))
                .toList());
    }

    /** A data batch: true when it belongs to an aborted transaction (drop it). */
    boolean onDataBatch(RecordBatch batch) {
        startAbortedUpTo(batch.lastOffset());
        if (!batch.isTransactional()) {
            return false;
        }
        if (ongoingAborted.containsKey(batch.producerId())) {
            ongoingAborted.put(batch.producerId(), true);
            return true;
        }
        ongoingCommitted.add(batch.producerId());
        return false;
    }

    /** A control batch: true when its marker may be removed (the delete horizon permitting). */
    boolean onControlBatch(RecordBatch batch) {
        startAbortedUpTo(batch.lastOffset());
        ControlRecordType type;
        try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            if (!records.hasNext()) {
                return true;
            }
            type = ControlRecordType.parse(records.next().key());
            tripwire.tripped(CodecSite.CLEANER_TRANSACTION_MARKER, 1);
        }
        long producerId = batch.producerId();
        switch (type) {
            case ABORT: {
                Boolean sawData = ongoingAborted.remove(producerId);
                return sawData == null || !sawData;
            }
            case COMMIT:
                return !ongoingCommitted.remove(producerId);
            default:
                return false;
        }
    }

    private void startAbortedUpTo(long offset) {
        while (!pending.isEmpty() && pending.peekFirst().firstOffset() <= offset) {
            ongoingAborted.putIfAbsent(pending.pollFirst().producerId(), false);
        }
    }
}
