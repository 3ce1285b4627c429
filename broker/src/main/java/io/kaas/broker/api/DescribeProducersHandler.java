package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.ProducerStatus;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeProducers (KIP-664): each partition's producer state, with the first offset of a producer's
 * open transaction ({@code kafka-transactions.sh describe-producers}, {@code find-hanging}, {@code abort}).
 * last_timestamp is the largest batch-header timestamp seen since the partition opened (-1 before the
 * producer writes again after a restart: it is not in the snapshot); the coordinator epoch is -1, as
 * markers are the only place it is written.
 */
public final class DescribeProducersHandler implements ApiHandler<DescribeProducersRequestData> {
    private final TopicCatalog topics;

    public DescribeProducersHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeProducersRequestData request) {
        DescribeProducersResponseData response = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest t : request.topics()) {
            DescribeProducersResponseData.TopicResponse tr =
                    new DescribeProducersResponseData.TopicResponse().setName(t.name());
            response.topics().add(tr);
            for (int partition : t.partitionIndexes()) {
                DescribeProducersResponseData.PartitionResponse pr =
                        new DescribeProducersResponseData.PartitionResponse().setPartitionIndex(partition);
                tr.partitions().add(pr);
                if (!ctx.allowed(AclOperation.READ, ResourceType.TOPIC, t.name())) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
                    continue;
                }
                if (!TopicCatalog.hasPartition(topics.topic(t.name()), partition)) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    for (ProducerStatus s :
                            topics.partition(t.name(), partition).producers()) {
                        pr.activeProducers()
                                .add(new DescribeProducersResponseData.ProducerState()
                                        .setProducerId(s.producerId())
                                        .setProducerEpoch(s.producerEpoch())
                                        .setLastSequence(s.lastSequence())
                                        .setLastTimestamp(s.lastTimestamp())
                                        .setCoordinatorEpoch(s.coordinatorEpoch())
                                        .setCurrentTxnStartOffset(s.currentTxnStartOffset()));
                    }
                } catch (RuntimeException e) {
                    Errors error = ErrorMapping.toKafka(e);
                    pr.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
