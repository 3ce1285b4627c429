package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.io.StorageException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** CreatePartitions: grows a topic; shrinking or staying equal is INVALID_PARTITIONS, as in Kafka. */
public final class CreatePartitionsHandler implements ApiHandler<CreatePartitionsRequestData> {
    private final TopicCatalog topics;

    public CreatePartitionsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, CreatePartitionsRequestData request) {
        CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        long budget = TopicCatalog.MAX_NEW_PARTITIONS_PER_REQUEST;
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : request.topics()) {
            CreatePartitionsResponseData.CreatePartitionsTopicResult r =
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(t.name());
            response.results().add(r);
            Optional<TopicInfo> topic = topics.topic(t.name());
            if (!ctx.allowed(AclOperation.ALTER, ResourceType.TOPIC, t.name())) {
                r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("The topic authorization is failed.");
            } else if (topic.isEmpty()) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("topic '" + t.name() + "' does not exist");
            } else if (t.count() <= topic.get().partitions()) {
                r.setErrorCode(Errors.INVALID_PARTITIONS.code())
                        .setErrorMessage(
                                "topic '" + t.name() + "' has " + topic.get().partitions()
                                        + " partitions; the new count " + t.count() + " must be larger");
            } else if ((long) t.count() - topic.get().partitions() > budget) {
                r.setErrorCode(Errors.POLICY_VIOLATION.code())
                        .setErrorMessage("topic '" + t.name() + "' would grow from "
                                + topic.get().partitions() + " to " + t.count()
                                + " partitions; one request may create at most "
                                + TopicCatalog.MAX_NEW_PARTITIONS_PER_REQUEST + " partitions in all (" + budget
                                + " left in this one)");
            } else {
                budget -= t.count() - topic.get().partitions();
                if (request.validateOnly()) {
                    continue;
                }
                try {
                    topics.engine().createPartitions(t.name(), t.count());
                } catch (StorageException e) {
                    r.setErrorCode(ErrorMapping.toKafka(e.kind()).code()).setErrorMessage(e.getMessage());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
