package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
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
    private final PartitionLeaders leaders;

    public MetadataHandler(TopicCatalog topics, Function<RequestContext, BrokerNode> node) {
        this(topics, node, PartitionLeaders.single());
    }

    /** With several brokers over one shared directory: brokers and leaders from {@code leaders}. */
    public MetadataHandler(TopicCatalog topics, Function<RequestContext, BrokerNode> node, PartitionLeaders leaders) {
        this.topics = topics;
        this.node = node;
        this.leaders = leaders;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, MetadataRequestData request) {
        BrokerNode self = node.apply(ctx);
        MetadataResponseData response =
                new MetadataResponseData().setClusterId(self.clusterId()).setControllerId(leaders.controllerId(self));
        for (BrokerNode b : leaders.brokers(self)) {
            response.brokers()
                    .add(new MetadataResponseData.MetadataResponseBroker()
                            .setNodeId(b.nodeId())
                            .setHost(b.host())
                            .setPort(b.port()));
        }
        if (request.topics() == null) {
            // All topics: those the principal may not DESCRIBE are left out, not even named (Apache).
            java.util.Collection<TopicInfo> all = topics.topics();
            java.util.Set<String> visible = ctx.allowedNames(
                    AclOperation.DESCRIBE,
                    ResourceType.TOPIC,
                    all.stream().map(TopicInfo::name).toList());
            for (TopicInfo t : all) {
                if (visible.contains(t.name())) {
                    response.topics().add(describe(t, self));
                }
            }
        } else {
            for (MetadataRequestData.MetadataRequestTopic wanted : request.topics()) {
                response.topics().add(lookup(ctx, wanted, request.allowAutoTopicCreation(), self));
            }
        }
        if (ctx.apiVersion() >= 8 && request.includeTopicAuthorizedOperations()) {
            // KIP-430: each described topic's allowed operations, as Apache.
            for (MetadataResponseData.MetadataResponseTopic t : response.topics()) {
                if (t.errorCode() == Errors.NONE.code()) {
                    t.setTopicAuthorizedOperations(ctx.authorizedOperations(ResourceType.TOPIC, t.name()));
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private MetadataResponseData.MetadataResponseTopic lookup(
            RequestContext ctx,
            MetadataRequestData.MetadataRequestTopic wanted,
            boolean allowAutoCreate,
            BrokerNode self) {
        Uuid id = wanted.topicId();
        if (id != null && !id.equals(Uuid.ZERO_UUID)) {
            // By id (Metadata v10+, KIP-516). kafka-clients sends the name as "" here, not null, and
            // reads every topic id in the answer: an unknown id comes back echoed, never as zero.
            Optional<TopicInfo> byId = topics.topicById(Uuids.toJava(id));
            if (byId.isPresent()
                    && !ctx.allowed(
                            AclOperation.DESCRIBE,
                            ResourceType.TOPIC,
                            byId.get().name())) {
                // Apache: an id is not secret, so it is echoed with the error; the name is not.
                return new MetadataResponseData.MetadataResponseTopic()
                        .setName(null)
                        .setTopicId(id)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            return byId.map(t -> describe(t, self))
                    .orElseGet(() -> new MetadataResponseData.MetadataResponseTopic()
                            .setName(null)
                            .setTopicId(id)
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, wanted.name())) {
            // Not told whether it exists.
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name())
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        try {
            TopicCatalog.validateName(wanted.name());
            if (allowAutoCreate
                    && topics.autoCreateEnabled()
                    && topics.topic(wanted.name()).isEmpty()
                    && !ctx.mayCreateTopic(wanted.name())) {
                return new MetadataResponseData.MetadataResponseTopic()
                        .setName(wanted.name())
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            Optional<TopicInfo> t = topics.getOrAutoCreate(wanted.name(), allowAutoCreate);
            if (t.isPresent()) {
                return describe(t.get(), self);
            }
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name())
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        } catch (InvalidTopicException e) {
            return new MetadataResponseData.MetadataResponseTopic()
                    .setName(wanted.name())
                    .setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
        }
    }

    private MetadataResponseData.MetadataResponseTopic describe(TopicInfo t, BrokerNode self) {
        MetadataResponseData.MetadataResponseTopic out = new MetadataResponseData.MetadataResponseTopic()
                .setName(t.name())
                .setTopicId(Uuids.toKafka(t.topicId()))
                .setIsInternal(false);
        for (int p = 0; p < t.partitions(); p++) {
            TopicPartition tp = new TopicPartition(t.name(), p);
            Optional<PartitionLeaders.Leadership> leader = topics.engine().inOfflineLogDir(tp)
                    ? Optional.empty()
                    : leaders.leadership(tp, self, topics.engine());
            MetadataResponseData.MetadataResponsePartition part = new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(p)
                    .setOfflineReplicas(new ArrayList<>());
            if (topics.engine().inOfflineLogDir(tp)) {
                // Apache's answer for a replica in an offline log dir, once the controller took its leadership away:
                // no leader, the replica still in replicas and ISR, and named offline.
                part.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code())
                        .setLeaderId(-1)
                        .setLeaderEpoch(-1)
                        .setReplicaNodes(new ArrayList<>(List.of(self.nodeId())))
                        .setIsrNodes(new ArrayList<>(List.of(self.nodeId())))
                        .setOfflineReplicas(new ArrayList<>(List.of(self.nodeId())));
            } else if (leader.isEmpty()) {
                part.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code())
                        .setLeaderId(-1)
                        .setLeaderEpoch(-1)
                        .setReplicaNodes(new ArrayList<>())
                        .setIsrNodes(new ArrayList<>());
            } else {
                int nodeId = leader.get().leaderId();
                part.setLeaderId(nodeId)
                        .setLeaderEpoch(leader.get().leaderEpoch())
                        .setReplicaNodes(new ArrayList<>(List.of(nodeId)))
                        .setIsrNodes(new ArrayList<>(List.of(nodeId)));
            }
            out.partitions().add(part);
        }
        return out;
    }
}
