package io.kaas.broker.api;

import io.kaas.broker.cluster.BrokerNode;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata: this broker leads every partition (replicas = ISR = itself), leader epochs from the
 * partitions' published state (from memory: Metadata never touches a partition's files), topic ids
 * from {@code .topic-id.json}. Unknown topics are auto-created when both the
 * broker and the request allow it.
 */
public final class MetadataHandler implements ApiHandler<MetadataRequestData> {
    private final TopicCatalog topics;
    private final Function<RequestContext, BrokerNode> node;

    public MetadataHandler(TopicCatalog topics, Function<RequestContext, BrokerNode> node) {
        this.topics = topics;
        this.node = node;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, MetadataRequestData request) {
        BrokerNode self = node.apply(ctx);
        MetadataResponseData response = new MetadataResponseData()
                .setClusterId(self.clusterId())
                .setControllerId(self.nodeId());
        response.brokers().add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(self.nodeId()).setHost(self.host()).setPort(self.port()));
        if (request.topics() == null) {
            // All topics: those the principal may not DESCRIBE are left out, not even named (Apache).
            java.util.Collection<TopicInfo> all = topics.topics();
            java.util.Set<String> visible = ctx.allowedNames(AclOperation.DESCRIBE, ResourceType.TOPIC,
                    all.stream().map(TopicInfo::name).toList());
            for (TopicInfo t : all) {
                if (visible.contains(t.name())) {
                    response.topics().add(describe(t, self.nodeId()));
                }
            }
        } else {
            for (MetadataRequestData.MetadataRequestTopic wanted : request.topics()) {
                response.topics().add(lookup(ctx, wanted, request.allowAutoTopicCreation(), self.nodeId()));
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private MetadataResponseData.MetadataResponseTopic lookup(RequestContext ctx, MetadataRequestData.MetadataRequestTopic wanted,
                                                              boolean allowAutoCreate, int nodeId) {
        Uuid id = wanted.topicId();
        if (id != null && !id.equals(Uuid.ZERO_UUID)) {
            // By id (Metadata v10+, KIP-516). kafka-clients sends the name as "" here, not null, and
            // reads every topic id in the answer: an unknown id comes back echoed, never as zero.
            Optional<TopicInfo> byId = topics.topicById(Uuids.toJava(id));
            if (byId.isPresent() && !ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, byId.get().name())) {
                // Apache: an id is not secret, so it is echoed with the error; the name is not.
                return new MetadataResponseData.MetadataResponseTopic()
                        .setName(null).setTopicId(id).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            return byId.map(t -> describe(t, nodeId)).orElseGet(() -> new MetadataResponseData.MetadataResponseTopic()
                    .setName(null).setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, wanted.name())) {
            // Not told whether it exists.
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        try {
            TopicCatalog.validateName(wanted.name());
            if (allowAutoCreate && topics.autoCreateEnabled() && topics.topic(wanted.name()).isEmpty()
                    && !ctx.mayCreateTopic(wanted.name())) {
                return new MetadataResponseData.MetadataResponseTopic()
                        .setName(wanted.name()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            Optional<TopicInfo> t = topics.getOrAutoCreate(wanted.name(), allowAutoCreate);
            if (t.isPresent()) {
                return describe(t.get(), nodeId);
            }
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        } catch (InvalidTopicException e) {
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name()).setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
        }
    }

    private MetadataResponseData.MetadataResponseTopic describe(TopicInfo t, int nodeId) {
        MetadataResponseData.MetadataResponseTopic out = new MetadataResponseData.MetadataResponseTopic()
                .setName(t.name()).setTopicId(Uuids.toKafka(t.topicId())).setIsInternal(false);
        for (int p = 0; p < t.partitions(); p++) {
            int epoch = topics.engine().partitionState(new TopicPartition(t.name(), p)).leaderEpoch();
            out.partitions().add(new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(p).setLeaderId(nodeId).setLeaderEpoch(epoch)
                    .setReplicaNodes(new ArrayList<>(List.of(nodeId))).setIsrNodes(new ArrayList<>(List.of(nodeId)))
                    .setOfflineReplicas(new ArrayList<>()));
        }
        return out;
    }
}
