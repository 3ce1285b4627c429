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
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** DeleteShareGroupOffsets (KIP-932, {@code kafka-share-groups.sh --delete-offsets}): an empty group forgets topics. */
public final class DeleteShareGroupOffsetsHandler implements ApiHandler<DeleteShareGroupOffsetsRequestData> {
    private final ShareGroupOffsets offsets;
    private final TopicCatalog topics;

    public DeleteShareGroupOffsetsHandler(ShareGroupOffsets offsets, TopicCatalog topics) {
        this.offsets = offsets;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteShareGroupOffsetsRequestData request) {
        DeleteShareGroupOffsetsResponseData out = new DeleteShareGroupOffsetsResponseData();
        Errors group = !ctx.allowed(AclOperation.DELETE, ResourceType.GROUP, request.groupId())
                ? Errors.GROUP_AUTHORIZATION_FAILED
                : offsets.mayChange(request.groupId());
        if (group != Errors.NONE) {
            return CompletableFuture.completedFuture(
                    out.setErrorCode(group.code()).setErrorMessage(group.message()));
        }
        for (DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic t : request.topics()) {
            Optional<TopicInfo> topic = topics.topic(t.topicName())
                    .filter(i -> ctx.allowed(AclOperation.READ, ResourceType.TOPIC, i.name()));
            Errors e = topic.isEmpty()
                    ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : offsets.delete(request.groupId(), topic.get());
            out.responses()
                    .add(new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                            .setTopicName(t.topicName())
                            .setTopicId(topic.map(i -> new Uuid(
                                            i.topicId().getMostSignificantBits(),
                                            i.topicId().getLeastSignificantBits()))
                                    .orElse(Uuid.ZERO_UUID))
                            .setErrorCode(e.code())
                            .setErrorMessage(e == Errors.NONE ? null : e.message()));
        }
        return CompletableFuture.completedFuture(out);
    }
}
