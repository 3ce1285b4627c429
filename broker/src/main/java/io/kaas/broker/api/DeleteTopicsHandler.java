package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.io.StorageException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** DeleteTopics by name (v0-5) or by name or id (v6+). The engine closes the partitions and removes their files. */
public final class DeleteTopicsHandler implements ApiHandler<DeleteTopicsRequestData> {
    private final TopicCatalog topics;

    public DeleteTopicsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteTopicsRequestData request) {
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        for (String name : request.topicNames()) {
            response.responses().add(delete(ctx, Optional.ofNullable(name), Uuid.ZERO_UUID));
        }
        for (DeleteTopicsRequestData.DeleteTopicState t : request.topics()) {
            // By id (v6+) when the id is set; the name is then null or "" depending on the client.
            boolean byId = t.topicId() != null && !t.topicId().equals(Uuid.ZERO_UUID);
            response.responses().add(delete(ctx, byId ? Optional.empty() : Optional.ofNullable(t.name()), t.topicId()));
        }
        return CompletableFuture.completedFuture(response);
    }

    private DeleteTopicsResponseData.DeletableTopicResult delete(RequestContext ctx, Optional<String> name, Uuid id) {
        DeleteTopicsResponseData.DeletableTopicResult r = new DeleteTopicsResponseData.DeletableTopicResult()
                .setName(name.orElse(null))
                .setTopicId(id);
        Optional<TopicInfo> topic = name.isPresent() ? topics.topic(name.get()) : topics.topicById(Uuids.toJava(id));
        // Apache's order: an unknown id; by id without DESCRIBE (name withheld); without DELETE; then existence.
        if (name.isEmpty()
                && topic.isPresent()
                && !ctx.allowed(
                        AclOperation.DESCRIBE, ResourceType.TOPIC, topic.get().name())) {
            return r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
        }
        String resolved = name.orElse(topic.map(TopicInfo::name).orElse(null));
        if (resolved != null && !ctx.allowed(AclOperation.DELETE, ResourceType.TOPIC, resolved)) {
            return r.setName(resolved)
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
        }
        if (topic.isEmpty()) {
            Errors e = name.isPresent() ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID;
            return r.setErrorCode(e.code()).setErrorMessage(e.message());
        }
        r.setName(topic.get().name()).setTopicId(Uuids.toKafka(topic.get().topicId()));
        try {
            topics.delete(topic.get().name());
        } catch (StorageException e) {
            r.setErrorCode(ErrorMapping.toKafka(e.kind()).code()).setErrorMessage(e.getMessage());
        }
        return r;
    }
}
