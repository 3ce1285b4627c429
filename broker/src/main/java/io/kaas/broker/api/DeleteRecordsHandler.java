package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TopicInfo;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteRecords: advances log start (durably, in the engine) to the requested offset, -1 meaning the
 * high watermark. An offset beyond the high watermark is OFFSET_OUT_OF_RANGE, as in Kafka.
 */
public final class DeleteRecordsHandler implements ApiHandler<DeleteRecordsRequestData> {
    private final TopicCatalog topics;

    public DeleteRecordsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteRecordsRequestData request) {
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : request.topics()) {
            DeleteRecordsResponseData.DeleteRecordsTopicResult tr =
                    new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(t.name());
            response.topics().add(tr);
            Optional<TopicInfo> topic = topics.topic(t.name());
            boolean allowed = ctx.allowed(AclOperation.DELETE, ResourceType.TOPIC, t.name());
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
                DeleteRecordsResponseData.DeleteRecordsPartitionResult pr =
                        new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                                .setPartitionIndex(p.partitionIndex())
                                .setLowWatermark(-1);
                tr.partitions().add(pr);
                if (!allowed) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (!TopicCatalog.hasPartition(topic, p.partitionIndex())) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    PartitionLog log = topics.partition(t.name(), p.partitionIndex());
                    PartitionState state = log.state();
                    if (p.offset() != -1 && (p.offset() < 0 || p.offset() > state.highWatermark())) {
                        pr.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                        continue;
                    }
                    pr.setLowWatermark(log.deleteRecords(p.offset()));
                } catch (RuntimeException e) {
                    pr.setErrorCode(ErrorMapping.toKafka(e).code());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
