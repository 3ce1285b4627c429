package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.TopicConfigChanges;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicToCreate;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateTopics. One broker: replication factor must be -1 (the broker default, KIP-464) or 1;
 * partitions -1 means the broker default (num.partitions); manual assignments are accepted when they
 * name only this broker. Configs are every topic config Apache's LogConfig defines, validated as
 * Apache does (INVALID_CONFIG with its message for an unknown name or a bad value). validate_only
 * checks everything and creates nothing. The answer carries the topic's effective configs (v5+).
 */
public final class CreateTopicsHandler implements ApiHandler<CreateTopicsRequestData> {
    private final TopicCatalog topics;
    private final TopicConfigView configs;
    private final int brokerId;

    public CreateTopicsHandler(TopicCatalog topics, TopicConfigView configs, int brokerId) {
        this.topics = topics;
        this.configs = configs;
        this.brokerId = brokerId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, CreateTopicsRequestData request) {
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        int budget = TopicCatalog.MAX_NEW_PARTITIONS_PER_REQUEST;
        // Checked one by one here, then created together (the engine creates several at once).
        List<TopicToCreate> wanted = new ArrayList<>();
        List<CreateTopicsResponseData.CreatableTopicResult> results = new ArrayList<>();
        for (CreateTopicsRequestData.CreatableTopic t : request.topics()) {
            CreateTopicsResponseData.CreatableTopicResult r = new CreateTopicsResponseData.CreatableTopicResult()
                    .setName(t.name())
                    .setNumPartitions(-1)
                    .setReplicationFactor((short) -1);
            response.topics().add(r);
            if (!ctx.mayCreateTopic(t.name())) {
                r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setErrorMessage("Authorization failed.");
                continue;
            }
            try {
                TopicToCreate c = check(t, r, budget);
                if (c != null) {
                    budget -= c.partitions();
                    if (!request.validateOnly()) {
                        wanted.add(c);
                        results.add(r);
                    }
                }
                if (r.errorCode() == Errors.NONE.code()
                        && !ctx.allowed(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, t.name())) {
                    // Apache: the topic is created, but its configs are only shown to who may describe them.
                    r.setConfigs(new java.util.ArrayList<>())
                            .setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                }
            } catch (InvalidTopicException e) {
                r.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).setErrorMessage(e.getMessage());
            } catch (IllegalArgumentException e) {
                r.setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage(e.getMessage());
            } catch (StorageException e) {
                r.setErrorCode(ErrorMapping.toKafka(e.kind()).code()).setErrorMessage(e.getMessage());
            }
        }
        if (wanted.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        List<CompletableFuture<TopicInfo>> created = topics.createAll(wanted);
        List<CompletableFuture<Void>> filled = new ArrayList<>(created.size());
        for (int i = 0; i < created.size(); i++) {
            CreateTopicsResponseData.CreatableTopicResult r = results.get(i);
            filled.add(created.get(i).handle((info, failure) -> {
                if (failure == null) {
                    r.setTopicId(Uuids.toKafka(info.topicId()));
                } else {
                    failed(r, failure instanceof CompletionException ? failure.getCause() : failure);
                }
                return null;
            }));
        }
        // The request thread is not held while the topics' files are written.
        return CompletableFuture.allOf(filled.toArray(new CompletableFuture[0])).thenApply(v -> response);
    }

    /** A topic the engine did not create: what it said, as the checks before it would have said it. */
    private static void failed(CreateTopicsResponseData.CreatableTopicResult r, Throwable failure) {
        Errors error;
        if (failure instanceof StorageException e) {
            error = ErrorMapping.toKafka(e.kind());
        } else if (failure instanceof InvalidTopicException) {
            error = Errors.INVALID_TOPIC_EXCEPTION;
        } else if (failure instanceof IllegalArgumentException) {
            error = Errors.INVALID_CONFIG;
        } else {
            error = Errors.UNKNOWN_SERVER_ERROR;
        }
        r.setErrorCode(error.code()).setErrorMessage(failure.getMessage());
    }

    /**
     * Fills {@code r} with what the topic would be; returns it to create (or, validating, that would be
     * created), or null when {@code r} says why not.
     */
    private TopicToCreate check(
            CreateTopicsRequestData.CreatableTopic t, CreateTopicsResponseData.CreatableTopicResult r, int budget) {
        TopicCatalog.validateNewName(t.name());
        int partitions = t.numPartitions() == -1 ? topics.defaultPartitions() : t.numPartitions();
        if (!t.assignments().isEmpty()) {
            for (CreateTopicsRequestData.CreatableReplicaAssignment a : t.assignments()) {
                if (!a.brokerIds().equals(java.util.List.of(brokerId))) {
                    r.setErrorCode(Errors.INVALID_REPLICA_ASSIGNMENT.code())
                            .setErrorMessage("partition " + a.partitionIndex() + " must be assigned to broker "
                                    + brokerId + " only");
                    return null;
                }
            }
            partitions = t.assignments().size();
        }
        if (partitions < 1) {
            r.setErrorCode(Errors.INVALID_PARTITIONS.code())
                    .setErrorMessage("partitions must be at least 1, got " + partitions);
            return null;
        }
        if (partitions > budget) {
            r.setErrorCode(Errors.POLICY_VIOLATION.code())
                    .setErrorMessage("topic '" + t.name() + "' asks for " + partitions
                            + " partitions; one request may create at most "
                            + TopicCatalog.MAX_NEW_PARTITIONS_PER_REQUEST
                            + " partitions in all (" + budget + " left in this one)");
            return null;
        }
        if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
            r.setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code())
                    .setErrorMessage(
                            "replication factor " + t.replicationFactor() + " is larger than the 1 available broker");
            return null;
        }
        Map<String, String> raw = new LinkedHashMap<>();
        for (CreateTopicsRequestData.CreatableTopicConfig c : t.configs()) {
            raw.put(c.name(), c.value());
        }
        TopicConfig config = TopicConfigChanges.build(Map.of(), raw);
        if (topics.topic(t.name()).isPresent()) {
            r.setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code())
                    .setErrorMessage("topic '" + t.name() + "' already exists");
            return null;
        }
        r.setNumPartitions(partitions).setReplicationFactor((short) 1);
        r.setConfigs(new java.util.ArrayList<>());
        for (TopicConfigView.Entry e : configs.effective(config).values()) {
            r.configs()
                    .add(new CreateTopicsResponseData.CreatableTopicConfigs()
                            .setName(e.name())
                            .setValue(e.value())
                            .setReadOnly(false)
                            .setConfigSource(e.source())
                            .setIsSensitive(false));
        }
        return new TopicToCreate(t.name(), partitions, config);
    }
}
