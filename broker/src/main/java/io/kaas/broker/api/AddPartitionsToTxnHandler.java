package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import io.kaas.broker.txn.TxnPartition;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddPartitionsToTxn. v0-3 (the client form): partitions join the producer's transaction; when some do
 * not exist, those get UNKNOWN_TOPIC_OR_PARTITION and the rest OPERATION_NOT_ATTEMPTED, nothing is added
 * (as Apache). v4+ (KIP-890 part 1, the form a partition leader sends its coordinator): several
 * transactions per request; {@code verify_only} checks membership (TRANSACTION_ABORTABLE when a partition is
 * not in the ongoing transaction, as Apache 4.4), otherwise it adds as v3 does (v5: what a partition leader
 * sends for a protocol v2 Produce, KIP-890 part 2).
 */
public final class AddPartitionsToTxnHandler implements ApiHandler<AddPartitionsToTxnRequestData> {
    public static final int MAX_VERSION = 5;
    private static final short FIRST_BATCHED_VERSION = 4;
    private static final int FIRST_PRODUCER_FENCED_VERSION = 2;

    private final TransactionCoordinator txns;
    private final TopicCatalog topics;

    public AddPartitionsToTxnHandler(TransactionCoordinator txns, TopicCatalog topics) {
        this.txns = txns;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AddPartitionsToTxnRequestData request) {
        AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            response.setResultsByTopicV3AndBelow(add(
                    ctx,
                    request.v3AndBelowTransactionalId(),
                    request.v3AndBelowProducerId(),
                    request.v3AndBelowProducerEpoch(),
                    request.v3AndBelowTopics(),
                    false));
            return CompletableFuture.completedFuture(response);
        }
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction t : request.transactions()) {
            response.resultsByTransaction()
                    .add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnResult()
                            .setTransactionalId(t.transactionalId())
                            .setTopicResults(add(
                                    ctx,
                                    t.transactionalId(),
                                    t.producerId(),
                                    t.producerEpoch(),
                                    t.topics(),
                                    t.verifyOnly())));
        }
        return CompletableFuture.completedFuture(response);
    }

    private AddPartitionsToTxnTopicResultCollection add(
            RequestContext ctx,
            String transactionalId,
            long producerId,
            short epoch,
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection request,
            boolean verifyOnly) {
        List<TxnPartition> wanted = new ArrayList<>();
        List<TxnPartition> unknown = new ArrayList<>();
        List<TxnPartition> denied = new ArrayList<>();
        short version = ctx.apiVersion();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t : request) {
            // From a producer (v3 and below): WRITE on each topic, before its existence (Apache). v4+ comes
            // from a broker and was checked for CLUSTER_ACTION as a whole.
            boolean allowed =
                    version >= FIRST_BATCHED_VERSION || ctx.allowed(AclOperation.WRITE, ResourceType.TOPIC, t.name());
            for (int p : t.partitions()) {
                TxnPartition tp = new TxnPartition(t.name(), p);
                // v4+ from a group coordinator may name a group's __consumer_offsets slot (TxnOffsetCommit, KIP-890).
                boolean exists = version >= FIRST_BATCHED_VERSION && tp.isOffsets()
                        || TopicCatalog.hasPartition(topics.topic(t.name()), p);
                (!allowed ? denied : exists ? wanted : unknown).add(tp);
            }
        }
        AddPartitionsToTxnTopicResultCollection out = new AddPartitionsToTxnTopicResultCollection();
        if (verifyOnly) {
            wanted.forEach(tp -> result(out, tp, txns.verify(transactionalId, producerId, epoch, tp)));
            unknown.forEach(tp -> result(out, tp, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            return out;
        }
        if (!unknown.isEmpty() || !denied.isEmpty()) {
            denied.forEach(tp -> result(out, tp, Errors.TOPIC_AUTHORIZATION_FAILED));
            unknown.forEach(tp -> result(out, tp, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            wanted.forEach(tp -> result(out, tp, Errors.OPERATION_NOT_ATTEMPTED));
            return out;
        }
        Errors e = TransactionErrors.forVersion(
                txns.addPartitions(transactionalId, producerId, epoch, wanted), version, FIRST_PRODUCER_FENCED_VERSION);
        wanted.forEach(tp -> result(out, tp, e));
        return out;
    }

    private static void result(AddPartitionsToTxnTopicResultCollection out, TxnPartition tp, Errors e) {
        AddPartitionsToTxnTopicResult topic = out.find(tp.topic());
        if (topic == null) {
            topic = new AddPartitionsToTxnTopicResult()
                    .setName(tp.topic())
                    .setResultsByPartition(new AddPartitionsToTxnPartitionResultCollection());
            out.add(topic);
        }
        topic.resultsByPartition()
                .add(new AddPartitionsToTxnPartitionResult()
                        .setPartitionIndex(tp.partition())
                        .setPartitionErrorCode(e.code()));
    }
}
