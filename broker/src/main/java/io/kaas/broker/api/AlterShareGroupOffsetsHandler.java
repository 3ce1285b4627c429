package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.share.ShareGroupOffsets;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** AlterShareGroupOffsets (KIP-932, {@code kafka-share-groups.sh --reset-offsets}): an empty group's partitions start over. */
public final class AlterShareGroupOffsetsHandler implements ApiHandler<AlterShareGroupOffsetsRequestData> {
    private final ShareGroupOffsets offsets;
    private final TopicCatalog topics;

    public AlterShareGroupOffsetsHandler(ShareGroupOffsets offsets, TopicCatalog topics) {
        this.offsets = offsets;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterShareGroupOffsetsRequestData request) {
        AlterShareGroupOffsetsResponseData out = new AlterShareGroupOffsetsResponseData();
        Errors group = !ctx.allowed(AclOperation.READ, ResourceType.GROUP, request.groupId())
                ? Errors.GROUP_AUTHORIZATION_FAILED
                : offsets.mayChange(request.groupId());
        if (group != Errors.NONE) {
            return CompletableFuture.completedFuture(
                    out.setErrorCode(group.code()).setErrorMessage(group.message()));
        }
        for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic t : request.topics()) {
            Optional<TopicInfo> topic = topics.topic(t.topicName())
                    .filter(i -> ctx.allowed(AclOperation.READ, ResourceType.TOPIC, i.name()));
            AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic rt =
                    new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                            .setTopicName(t.topicName())
                            .setTopicId(topic.map(i -> new Uuid(
                                            i.topicId().getMostSignificantBits(),
                                            i.topicId().getLeastSignificantBits()))
                                    .orElse(Uuid.ZERO_UUID));
            out.responses().add(rt);
            for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition p : t.partitions()) {
                Errors e = topic.isEmpty()
                                || p.partitionIndex() < 0
                                || p.partitionIndex() >= topic.get().partitions()
                        ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                        : offsets.alter(request.groupId(), topic.get(), p.partitionIndex(), p.startOffset());
                rt.partitions()
                        .add(new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(e.code())
                                .setErrorMessage(e == Errors.NONE ? null : e.message()));
            }
        }
        return CompletableFuture.completedFuture(out);
    }
}
