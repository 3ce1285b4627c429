package io.kaas.broker.txn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * One transactional id's coordinator state, immutable: the in-memory value and the durable form
 * (an entry of {@code slot-NN.json}). Every change builds a new one, writes its slot, then replaces
 * the old one in memory, so memory never runs ahead of the disk.
 *
 * @param lastProducerEpoch the epoch before the last bump, or -1: a KIP-360 InitProducerId retried
 *                          with it gets the current epoch back instead of a second bump
 * @param startTimestamp    when the open transaction began (wall clock, so a timeout survives a restart), or -1
 * @param previousProducerId the producer id before a transaction moved to a new one because its epoch was exhausted
 *                          (transaction protocol v2), else null: an EndTxn retried with the old id is recognised
 */
public record TransactionRecord(
        String transactionalId,
        long producerId,
        short producerEpoch,
        short lastProducerEpoch,
        int timeoutMs,
        TxnState state,
        List<TxnPartition> partitions,
        List<String> groups,
        List<StagedOffset> offsets,
        long startTimestamp,
        long lastUpdateTimestamp,
        Long previousProducerId) {
    public TransactionRecord {
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        groups = groups == null ? List.of() : List.copyOf(groups);
        offsets = offsets == null ? List.of() : List.copyOf(offsets);
    }

    static TransactionRecord fresh(String transactionalId, long producerId, int timeoutMs, long now) {
        return new TransactionRecord(
                transactionalId,
                producerId,
                (short) 0,
                (short) -1,
                timeoutMs,
                TxnState.EMPTY,
                List.of(),
                List.of(),
                List.of(),
                -1,
                now,
                null);
    }

    /** A new producer session: epoch bumped (or a new id when the epoch is exhausted), no transaction. */
    TransactionRecord nextSession(long newProducerId, short newEpoch, short lastEpoch, int timeout, long now) {
        return new TransactionRecord(
                transactionalId,
                newProducerId,
                newEpoch,
                lastEpoch,
                timeout,
                TxnState.EMPTY,
                List.of(),
                List.of(),
                List.of(),
                -1,
                now,
                null);
    }

    /** ONGOING with {@code added} partitions and {@code group} (either may be empty); a new transaction starts clean. */
    TransactionRecord withAdded(Collection<TxnPartition> added, String group, long now) {
        boolean fresh = state != TxnState.ONGOING;
        TreeSet<TxnPartition> p = new TreeSet<>(fresh ? List.of() : partitions);
        p.addAll(added);
        TreeSet<String> g = new TreeSet<>(fresh ? List.of() : groups);
        if (group != null) {
            g.add(group);
        }
        return new TransactionRecord(
                transactionalId,
                producerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                TxnState.ONGOING,
                new ArrayList<>(p),
                new ArrayList<>(g),
                fresh ? List.of() : offsets,
                fresh ? now : startTimestamp,
                now,
                null);
    }

    /**
     * PREPARE_COMMIT or PREPARE_ABORT at {@code epoch}: a fencing abort, and every end of a transaction under
     * protocol v2, writes its markers with a bumped epoch. A v2 abort with nothing open (from EMPTY or
     * COMPLETE_*, only to bump the epoch) has no partitions and starts now.
     */
    TransactionRecord prepared(boolean commit, short epoch, short lastEpoch, long now) {
        return new TransactionRecord(
                transactionalId,
                producerId,
                epoch,
                lastEpoch,
                timeoutMs,
                commit ? TxnState.PREPARE_COMMIT : TxnState.PREPARE_ABORT,
                partitions,
                groups,
                offsets,
                startTimestamp < 0 ? now : startTimestamp,
                now,
                null);
    }

    /**
     * PREPARE_ABORT with the epoch bumped (kept when exhausted), so the markers fence the old session everywhere: the
     * abort of a transaction past its timeout, or of one open when InitProducerId starts a new session.
     */
    TransactionRecord fencingAbort(long now) {
        short epoch = producerEpoch >= Short.MAX_VALUE - 1 ? producerEpoch : (short) (producerEpoch + 1);
        return prepared(false, epoch, (short) -1, now);
    }

    /**
     * COMPLETE_COMMIT or COMPLETE_ABORT: the markers are written, nothing is pending. A v2 transaction that
     * bumped its epoch to {@link Short#MAX_VALUE} continues under {@code nextProducerId} at epoch 0
     * (Apache's {@code prepareComplete} with a next producer id); {@code nextProducerId} is -1 otherwise.
     */
    TransactionRecord completed(long nextProducerId, long now) {
        TxnState done = state == TxnState.PREPARE_COMMIT ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT;
        if (nextProducerId >= 0) {
            return new TransactionRecord(
                    transactionalId,
                    nextProducerId,
                    (short) 0,
                    lastProducerEpoch,
                    timeoutMs,
                    done,
                    List.of(),
                    List.of(),
                    List.of(),
                    -1,
                    now,
                    producerId);
        }
        return new TransactionRecord(
                transactionalId,
                producerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                done,
                List.of(),
                List.of(),
                List.of(),
                -1,
                now,
                null);
    }

    /** Whether completing this prepared transaction moves it to a new producer id (v2, epoch exhausted). */
    boolean rotatesProducerId() {
        return producerEpoch == Short.MAX_VALUE;
    }

    boolean commits() {
        return state == TxnState.PREPARE_COMMIT;
    }
}
