package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.TopicConfigChanges;
import io.kaas.protocol.ErrorMapping;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.io.StorageException;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * The alter step IncrementalAlterConfigs and the legacy AlterConfigs share: find the topic, compute
 * its new set of configs, validate the whole set as Apache does, write it (atomically, by the engine)
 * unless validate_only. All of a resource's changes apply or none. Broker configs are read-only here.
 */
final class TopicConfigAlterer {
    private final TopicCatalog topics;

    TopicConfigAlterer(TopicCatalog topics) {
        this.topics = topics;
    }

    ApiError alter(
            byte resourceType, String resourceName, UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        ConfigResource.Type type = ConfigResource.Type.forId(resourceType);
        if (type != ConfigResource.Type.TOPIC) {
            return new ApiError(
                    Errors.INVALID_REQUEST, "only topic configs can be altered; kaas's broker configs are read-only");
        }
        Optional<TopicInfo> topic = topics.topic(resourceName);
        if (topic.isEmpty()) {
            return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + resourceName + "' does not exist");
        }
        try {
            if (validateOnly) {
                Map<String, String> current = topic.get().config().toKafkaConfigs();
                TopicConfigChanges.build(current, change.apply(current));
            } else {
                // Applied to the config as stored now: another broker of a shared directory may have changed it.
                topics.engine().alterTopicConfig(resourceName, stored -> {
                    Map<String, String> current = stored.toKafkaConfigs();
                    return TopicConfigChanges.build(current, change.apply(current));
                });
            }
            return ApiError.NONE;
        } catch (IllegalArgumentException e) {
            return new ApiError(Errors.INVALID_CONFIG, e.getMessage());
        } catch (StorageException e) {
            return new ApiError(ErrorMapping.toKafka(e.kind()), e.getMessage());
        }
    }
}
