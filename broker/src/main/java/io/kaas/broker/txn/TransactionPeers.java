package io.kaas.broker.txn;

import io.kaas.broker.cluster.InterBrokerClient;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.storage.TopicPartition;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The other brokers of a cluster sharing one directory, as transactions need them: a transaction's
 * partitions may be led by several brokers, and its coordinator (the broker FindCoordinator names) may be none of
 * them. As in Apache, the coordinator sends each partition's marker to the partition's leader (WriteTxnMarkers), and
 * a partition leader asks the coordinator whether a transactional batch belongs to an ongoing transaction, or adds
 * its partition to it (AddPartitionsToTxn v4+, KIP-890). Blocking calls (see {@link InterBrokerClient}).
 */
public final class TransactionPeers {
    private final PartitionLeaders leaders;
    private final Supplier<BrokerNode> self;
    private final InterBrokerClient client;

    public TransactionPeers(PartitionLeaders leaders, Supplier<BrokerNode> self, InterBrokerClient client) {
        this.leaders = leaders;
        this.self = self;
        this.client = client;
    }

    /** Where a partition's marker goes: written here ({@code local}), sent to {@code node}, or nowhere yet (no leader now). */
    record Route(boolean local, BrokerNode node) {
        static final Route LOCAL = new Route(true, null);
        static final Route NONE = new Route(false, null);
    }

    /** A data partition's leader; for a group slot ({@link TxnPartition#isOffsets}), the slot's group coordinator. */
    Route route(TxnPartition p) {
        BrokerNode me = self.get();
        OptionalInt leader;
        if (p.isOffsets()) {
            int id = leaders.groupCoordinator(p.partition(), me);
            leader = id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
        } else {
            leader = leaders.leader(new TopicPartition(p.topic(), p.partition()), me);
        }
        if (leader.isEmpty()) {
            return Route.NONE;
        }
        if (leader.getAsInt() == me.nodeId()) {
            return Route.LOCAL;
        }
        return node(leader.getAsInt()).map(n -> new Route(false, n)).orElse(Route.NONE);
    }

    /**
     * The broker FindCoordinator names for {@code transactionalId}, unless it is this one (empty). {@code null} inside
     * the optional is never returned; a slot nobody coordinates now is answered as this broker, whose coordinator then
     * says NOT_COORDINATOR.
     */
    Optional<BrokerNode> remoteCoordinator(String transactionalId) {
        BrokerNode me = self.get();
        int id = leaders.transactionCoordinator(TransactionStateStore.slotFor(transactionalId), me);
        return id < 0 || id == me.nodeId() ? Optional.empty() : node(id);
    }

    private Optional<BrokerNode> node(int id) {
        return leaders.brokers(self.get()).stream()
                .filter(b -> b.nodeId() == id)
                .findFirst();
    }

    /** One partition's marker written by its leader {@code to}: the leader's answer for it. */
    Errors writeMarker(
            BrokerNode to, TxnPartition p, long producerId, short epoch, boolean commit, int coordinatorEpoch)
            throws IOException {
        WriteTxnMarkersRequestData.WritableTxnMarker marker = new WriteTxnMarkersRequestData.WritableTxnMarker()
                .setProducerId(producerId)
                .setProducerEpoch(epoch)
                .setTransactionResult(commit)
                .setCoordinatorEpoch(coordinatorEpoch);
        marker.topics()
                .add(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                        .setName(p.topic())
                        .setPartitionIndexes(java.util.List.of(p.partition())));
        WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
        request.markers().add(marker);
        WriteTxnMarkersResponseData response =
                (WriteTxnMarkersResponseData) client.send(to, ApiKeys.WRITE_TXN_MARKERS, request);
        for (WriteTxnMarkersResponseData.WritableTxnMarkerResult m : response.markers()) {
            for (WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult t : m.topics()) {
                for (WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult r : t.partitions()) {
                    return Errors.forCode(r.errorCode());
                }
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /**
     * AddPartitionsToTxn (the broker form, v4+) to the coordinator {@code to}: verify only (Produce before v12) or add
     * (v12+). Each partition's answer; a connection failure or a coordinator that moved is NOT_ENOUGH_REPLICAS for all,
     * a retriable error to the producer, as Apache's {@code AddPartitionsToTxnManager} answers it.
     */
    Map<TxnPartition, Errors> addPartitions(
            BrokerNode to,
            String transactionalId,
            long producerId,
            short epoch,
            Collection<TxnPartition> partitions,
            boolean verifyOnly) {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        for (TxnPartition p : partitions) {
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t = topics.find(p.topic());
            if (t == null) {
                t = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(p.topic());
                topics.add(t);
            }
            t.partitions().add(p.partition());
        }
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection txns =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        txns.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction()
                .setTransactionalId(transactionalId)
                .setProducerId(producerId)
                .setProducerEpoch(epoch)
                .setVerifyOnly(verifyOnly)
                .setTopics(topics));
        Map<TxnPartition, Errors> out = new HashMap<>();
        try {
            AddPartitionsToTxnResponseData response = (AddPartitionsToTxnResponseData) client.send(
                    to, ApiKeys.ADD_PARTITIONS_TO_TXN, new AddPartitionsToTxnRequestData().setTransactions(txns));
            Errors top = Errors.forCode(response.errorCode());
            for (AddPartitionsToTxnResponseData.AddPartitionsToTxnResult r : response.resultsByTransaction()) {
                for (AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult t : r.topicResults()) {
                    for (AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult pr : t.resultsByPartition()) {
                        out.put(
                                new TxnPartition(t.name(), pr.partitionIndex()),
                                Errors.forCode(pr.partitionErrorCode()));
                    }
                }
            }
            for (TxnPartition p : partitions) {
                Errors e = retriable(out.getOrDefault(p, top == Errors.NONE ? Errors.UNKNOWN_SERVER_ERROR : top));
                out.put(p, e);
            }
        } catch (IOException e) {
            partitions.forEach(p -> out.put(p, Errors.NOT_ENOUGH_REPLICAS));
        }
        return out;
    }

    private static Errors retriable(Errors e) {
        return switch (e) {
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS -> Errors.NOT_ENOUGH_REPLICAS;
            default -> e;
        };
    }
}
