package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicInfo;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetForLeaderEpoch (consumers validate their position after a metadata change, KIP-320): the end
 * offset of the requested epoch with the largest known epoch at or below it, or -1/-1 when none.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler<OffsetForLeaderEpochRequestData> {
    private final TopicCatalog topics;

    public OffsetForLeaderEpochHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, OffsetForLeaderEpochRequestData request) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        // Apache: replicas (CLUSTER_ACTION) see every topic; clients need DESCRIBE on each.
        boolean replica = ctx.access().enabled() && ctx.allowedOnCluster(AclOperation.CLUSTER_ACTION);
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : request.topics()) {
            OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult tr =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(t.topic());
            response.topics().add(tr);
            Optional<TopicInfo> topic = topics.topic(t.topic());
            boolean allowed = replica || ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset out =
                        new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                .setPartition(p.partition())
                                .setLeaderEpoch(-1)
                                .setEndOffset(-1);
                tr.partitions().add(out);
                if (!allowed) {
                    out.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (topic.isEmpty()
                        || p.partition() < 0
                        || p.partition() >= topic.get().partitions()) {
                    out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    PartitionLog log = topics.partition(t.topic(), p.partition());
                    int current = log.state().leaderEpoch();
                    if (p.currentLeaderEpoch() > current) {
                        out.setErrorCode(Errors.UNKNOWN_LEADER_EPOCH.code());
                        continue;
                    }
                    if (p.currentLeaderEpoch() >= 0 && p.currentLeaderEpoch() < current) {
                        out.setErrorCode(Errors.FENCED_LEADER_EPOCH.code());
                        continue;
                    }
                    log.endOffsetForEpoch(p.leaderEpoch())
                            .ifPresent(e -> out.setLeaderEpoch(e.epoch()).setEndOffset(e.endOffset()));
                } catch (RuntimeException e) {
                    out.setErrorCode(ErrorMapping.toKafka(e).code());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
