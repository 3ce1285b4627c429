package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTopicPartitions (KIP-966; what Admin.describeTopics uses when offered): topics by name (all
 * when none named) in name order, paginated by the response partition limit and the cursor.
 */
public final class DescribeTopicPartitionsHandler implements ApiHandler<DescribeTopicPartitionsRequestData> {
    private final TopicCatalog topics;
    private final Function<RequestContext, BrokerNode> node;
    private final PartitionLeaders leaders;

    public DescribeTopicPartitionsHandler(TopicCatalog topics, int brokerId) {
        this(topics, ctx -> new BrokerNode(brokerId, "", 0, ""), PartitionLeaders.single());
    }

    /** With several brokers over one shared directory: leaders from {@code leaders}. */
    public DescribeTopicPartitionsHandler(
            TopicCatalog topics, Function<RequestContext, BrokerNode> node, PartitionLeaders leaders) {
        this.topics = topics;
        this.node = node;
        this.leaders = leaders;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeTopicPartitionsRequestData request) {
        DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData();
        BrokerNode self = node.apply(ctx);
        List<String> names = new ArrayList<>();
        if (request.topics().isEmpty()) {
            // All topics: those the principal may not DESCRIBE are left out (Apache).
            names.addAll(ctx.allowedNames(
                    AclOperation.DESCRIBE,
                    ResourceType.TOPIC,
                    topics.topics().stream().map(TopicInfo::name).toList()));
        } else {
            request.topics().forEach(t -> names.add(t.name()));
        }
        names.sort(Comparator.naturalOrder());
        DescribeTopicPartitionsRequestData.Cursor cursor = request.cursor();
        int budget = request.responsePartitionLimit() <= 0 ? 2000 : request.responsePartitionLimit();
        for (String name : names) {
            if (cursor != null && name.compareTo(cursor.topicName()) < 0) {
                continue;
            }
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
                response.topics()
                        .add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
                                .setName(name)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                continue;
            }
            Optional<TopicInfo> topic = topics.topic(name);
            if (topic.isEmpty()) {
                response.topics()
                        .add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
                                .setName(name)
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                continue;
            }
            TopicInfo t = topic.get();
            DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic out =
                    new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
                            .setName(name)
                            .setTopicId(Uuids.toKafka(t.topicId()))
                            .setIsInternal(false)
                            // KIP-430: Apache reports every described topic's allowed operations here.
                            .setTopicAuthorizedOperations(ctx.authorizedOperations(ResourceType.TOPIC, name));
            int first = cursor != null && name.equals(cursor.topicName()) ? cursor.partitionIndex() : 0;
            for (int p = first; p < t.partitions(); p++) {
                if (budget == 0) {
                    response.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor()
                            .setTopicName(name)
                            .setPartitionIndex(p));
                    break;
                }
                budget--;
                TopicPartition tp = new TopicPartition(name, p);
                // A replica in an offline log dir: no leader, still a replica and in the ISR, named offline (as
                // Metadata).
                boolean offline = topics.engine().inOfflineLogDir(tp);
                Optional<PartitionLeaders.Leadership> leader =
                        offline ? Optional.empty() : leaders.leadership(tp, self, topics.engine());
                List<Integer> replicas = offline
                        ? List.of(self.nodeId())
                        : leader.map(l -> List.of(l.leaderId())).orElse(List.of());
                out.partitions()
                        .add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                                .setPartitionIndex(p)
                                .setLeaderId(leader.map(PartitionLeaders.Leadership::leaderId)
                                        .orElse(-1))
                                .setLeaderEpoch(leader.map(PartitionLeaders.Leadership::leaderEpoch)
                                        .orElse(-1))
                                .setErrorCode(
                                        leader.isEmpty() ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code())
                                .setReplicaNodes(new ArrayList<>(replicas))
                                .setIsrNodes(new ArrayList<>(replicas))
                                .setEligibleLeaderReplicas(new ArrayList<>())
                                .setLastKnownElr(new ArrayList<>())
                                .setOfflineReplicas(new ArrayList<>(offline ? replicas : List.of())));
            }
            response.topics().add(out);
            if (response.nextCursor() != null) {
                break;
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
