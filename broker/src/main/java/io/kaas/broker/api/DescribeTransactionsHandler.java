package io.kaas.broker.api;

import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionRecord;
import io.kaas.broker.txn.TxnPartition;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTransactions (KIP-664): the coordinator's state of each transactional id ({@code kafka-transactions.sh
 * describe}) the principal may DESCRIBE, with only the partitions of topics it may DESCRIBE (Apache's checks).
 */
public final class DescribeTransactionsHandler implements ApiHandler<DescribeTransactionsRequestData> {
    private final TransactionCoordinator txns;

    public DescribeTransactionsHandler(TransactionCoordinator txns) {
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeTransactionsRequestData request) {
        DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
        for (String id : request.transactionalIds()) {
            DescribeTransactionsResponseData.TransactionState out =
                    new DescribeTransactionsResponseData.TransactionState()
                            .setTransactionalId(id)
                            .setTransactionState("")
                            .setProducerId(-1)
                            .setProducerEpoch((short) -1)
                            .setTransactionStartTimeMs(-1);
            response.transactionStates().add(out);
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id)) {
                out.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
                continue;
            }
            if (!txns.coordinates(id)) {
                out.setErrorCode(Errors.NOT_COORDINATOR.code());
                continue;
            }
            Optional<TransactionRecord> found = txns.describe(id);
            if (found.isEmpty()) {
                out.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
                continue;
            }
            TransactionRecord r = found.get();
            out.setTransactionState(r.state().wireName())
                    .setTransactionTimeoutMs(r.timeoutMs())
                    .setTransactionStartTimeMs(r.startTimestamp())
                    .setProducerId(r.producerId())
                    .setProducerEpoch(r.producerEpoch());
            for (TxnPartition p : r.partitions()) {
                // Apache lists only the partitions of topics the principal may DESCRIBE.
                if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, p.topic())) {
                    continue;
                }
                DescribeTransactionsResponseData.TopicData topic = out.topics().find(p.topic());
                if (topic == null) {
                    topic = new DescribeTransactionsResponseData.TopicData().setTopic(p.topic());
                    out.topics().add(topic);
                }
                topic.partitions().add(p.partition());
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
