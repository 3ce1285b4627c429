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
 */
public record TransactionRecord(String transactionalId, long producerId, short producerEpoch, short lastProducerEpoch,
                                int timeoutMs, TxnState state, List<TxnPartition> partitions, List<String> groups,
                                List<StagedOffset> offsets, long startTimestamp, long lastUpdateTimestamp) {
    public TransactionRecord {
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        groups = groups == null ? List.of() : List.copyOf(groups);
        offsets = offsets == null ? List.of() : List.copyOf(offsets);
    }

    static TransactionRecord fresh(String transactionalId, long producerId, int timeoutMs, long now) {
        return new TransactionRecord(transactionalId, producerId, (short) 0, (short) -1, timeoutMs, TxnState.EMPTY,
                List.of(), List.of(), List.of(), -1, now);
    }

    /** A new producer session: epoch bumped (or a new id when the epoch is exhausted), no transaction. */
    TransactionRecord nextSession(long newProducerId, short newEpoch, short lastEpoch, int timeout, long now) {
        return new TransactionRecord(transactionalId, newProducerId, newEpoch, lastEpoch, timeout, TxnState.EMPTY,
                List.of(), List.of(), List.of(), -1, now);
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
        return new TransactionRecord(transactionalId, producerId, producerEpoch, lastProducerEpoch, timeoutMs,
                TxnState.ONGOING, new ArrayList<>(p), new ArrayList<>(g), fresh ? List.of() : offsets,
                fresh ? now : startTimestamp, now);
    }

    /** Offsets staged by a TxnOffsetCommit, replacing earlier ones for the same group and partition. */
    TransactionRecord withOffsets(List<StagedOffset> staged, long now) {
        List<StagedOffset> next = new ArrayList<>();
        for (StagedOffset o : offsets) {
            if (staged.stream().noneMatch(s -> s.groupId().equals(o.groupId()) && s.topic().equals(o.topic())
                    && s.partition() == o.partition())) {
                next.add(o);
            }
        }
        next.addAll(staged);
        return new TransactionRecord(transactionalId, producerId, producerEpoch, lastProducerEpoch, timeoutMs, state,
                partitions, groups, next, startTimestamp, now);
    }

    /** PREPARE_COMMIT or PREPARE_ABORT at {@code epoch} (a fencing abort writes its markers with a bumped epoch). */
    TransactionRecord prepared(boolean commit, short epoch, short lastEpoch, long now) {
        return new TransactionRecord(transactionalId, producerId, epoch, lastEpoch, timeoutMs,
                commit ? TxnState.PREPARE_COMMIT : TxnState.PREPARE_ABORT, partitions, groups, offsets, startTimestamp, now);
    }

    /** COMPLETE_COMMIT or COMPLETE_ABORT: the markers are written, nothing is pending. */
    TransactionRecord completed(long now) {
        return new TransactionRecord(transactionalId, producerId, producerEpoch, lastProducerEpoch, timeoutMs,
                state == TxnState.PREPARE_COMMIT ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT,
                List.of(), List.of(), List.of(), -1, now);
    }

    boolean commits() {
        return state == TxnState.PREPARE_COMMIT;
    }
}
