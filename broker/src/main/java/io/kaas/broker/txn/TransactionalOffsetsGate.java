package io.kaas.broker.txn;

import io.kaas.cluster.BrokerNode;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;

/**
 * The group coordinator's question to the transaction coordinator before it stages a TxnOffsetCommit's offsets, as
 * Apache's group coordinator asks it (KIP-890): is the group's {@code __consumer_offsets} slot
 * ({@link TxnPartition#offsetsOf}) in the producer's ongoing transaction (TxnOffsetCommit before v5, after
 * AddOffsetsToTxn), or may it join it (v5+, transaction protocol v2: no AddOffsetsToTxn). Asked here when this broker
 * coordinates the transactional id, else with AddPartitionsToTxn v4+ ({@link TransactionPeers}), so the marker that
 * ends the transaction is sure to reach the group's coordinator and settle what it staged.
 *
 * <p>Errors as TxnOffsetCommit answers them: a slot not in the transaction is INVALID_TXN_STATE; a transaction
 * coordinator moving or unreachable is COORDINATOR_NOT_AVAILABLE, which the producer retries.
 */
public final class TransactionalOffsetsGate {
    private final TransactionCoordinator txns;
    private final TransactionPeers peers;

    /** {@code peers}: null for a broker on its own. */
    public TransactionalOffsetsGate(TransactionCoordinator txns, TransactionPeers peers) {
        this.txns = txns;
        this.peers = peers;
    }

    /** NONE when {@code groupId}'s offsets may be staged in the transaction ({@code add}: joining it first). */
    public Errors check(String transactionalId, long producerId, short epoch, String groupId, boolean add) {
        TxnPartition slot = TxnPartition.offsetsOf(groupId);
        Optional<BrokerNode> remote = peers == null ? Optional.empty() : peers.remoteCoordinator(transactionalId);
        Errors e;
        if (remote.isPresent()) {
            e = peers.addPartitions(remote.get(), transactionalId, producerId, epoch, List.of(slot), !add)
                    .getOrDefault(slot, Errors.UNKNOWN_SERVER_ERROR);
        } else {
            e = add
                    ? txns.addPartitions(transactionalId, producerId, epoch, List.of(slot))
                    : txns.verify(transactionalId, producerId, epoch, slot);
        }
        return switch (e) {
            case TRANSACTION_ABORTABLE -> Errors.INVALID_TXN_STATE;
            case NOT_COORDINATOR, NOT_ENOUGH_REPLICAS, COORDINATOR_LOAD_IN_PROGRESS -> Errors.COORDINATOR_NOT_AVAILABLE;
            default -> e;
        };
    }
}
