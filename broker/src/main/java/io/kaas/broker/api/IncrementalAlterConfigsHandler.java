package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.StorageException;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.TopicConfig;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * IncrementalAlterConfigs on topics: SET and DELETE of the configs {@code .config.json} holds,
 * written by the engine (atomically) unless validate_only. All of a resource's changes apply or none.
 * APPEND/SUBTRACT (list configs) are INVALID_CONFIG; broker configs are read-only (INVALID_REQUEST).
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler<IncrementalAlterConfigsRequestData> {
    private static final byte SET = 0, DELETE = 1;

    private final TopicCatalog topics;

    public IncrementalAlterConfigsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, IncrementalAlterConfigsRequestData request) {
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource res : request.resources()) {
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r = new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(res.resourceType()).setResourceName(res.resourceName());
            response.responses().add(r);
            ConfigResource.Type type = ConfigResource.Type.forId(res.resourceType());
            if (type != ConfigResource.Type.TOPIC) {
                r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("only topic configs can be altered; broker configs are read-only");
                continue;
            }
            Optional<TopicInfo> topic = topics.topic(res.resourceName());
            if (topic.isEmpty()) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("topic '" + res.resourceName() + "' does not exist");
                continue;
            }
            TopicConfig config = topic.get().config();
            try {
                for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
                    if (c.configOperation() == SET) {
                        config = config.withKafkaConfig(c.name(), c.value());
                    } else if (c.configOperation() == DELETE) {
                        config = config.withKafkaConfig(c.name(), null);
                    } else {
                        throw new IllegalArgumentException("operation " + c.configOperation() + " on " + c.name()
                                + " is not supported; use SET or DELETE");
                    }
                }
                if (!request.validateOnly()) {
                    topics.engine().updateTopicConfig(res.resourceName(), config);
                }
            } catch (IllegalArgumentException e) {
                r.setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage(e.getMessage());
            } catch (StorageException e) {
                r.setErrorCode(ErrorMapping.toKafka(e.kind()).code()).setErrorMessage(e.getMessage());
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
