package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders ({@code kafka-leader-election}), answered as a cluster of single-copy partitions must: a
 * partition's only replica is its preferred leader, so a partition that has a leader needs no election,
 * preferred or unclean (ELECTION_NOT_NEEDED, Apache's answer for a partition already led by its preferred
 * replica); one between owners (a broker failed over, the move not done yet) has none to elect
 * (PREFERRED_LEADER_NOT_AVAILABLE, or ELIGIBLE_LEADERS_NOT_AVAILABLE for an unclean election). Unknown
 * topics and partitions are UNKNOWN_TOPIC_OR_PARTITION. As Apache's controller, a request for every
 * partition (null topics) lists only the partitions whose answer is not ELECTION_NOT_NEEDED; ALTER on the
 * cluster is needed (else every partition is CLUSTER_AUTHORIZATION_FAILED).
 */
public final class ElectLeadersHandler implements ApiHandler<ElectLeadersRequestData> {
    private final TopicCatalog topics;
    private final PartitionLeaders leaders;
    private final Function<RequestContext, BrokerNode> nodeFor;

    public ElectLeadersHandler(
            TopicCatalog topics, PartitionLeaders leaders, Function<RequestContext, BrokerNode> nodeFor) {
        this.topics = topics;
        this.leaders = leaders;
        this.nodeFor = nodeFor;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ElectLeadersRequestData request) {
        ElectLeadersResponseData out = new ElectLeadersResponseData();
        ElectionType type = ElectionType.valueOf(request.electionType());
        BrokerNode self = nodeFor.apply(ctx);
        if (!ctx.allowedOnCluster(AclOperation.ALTER)) {
            out.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            if (request.topicPartitions() != null) {
                for (TopicPartitions t : request.topicPartitions()) {
                    ReplicaElectionResult r = new ReplicaElectionResult().setTopic(t.topic());
                    t.partitions()
                            .forEach(p -> r.partitionResult().add(result(p, Errors.CLUSTER_AUTHORIZATION_FAILED)));
                    out.replicaElectionResults().add(r);
                }
            }
            return CompletableFuture.completedFuture(out);
        }
        if (request.topicPartitions() == null) {
            for (TopicInfo t : topics.topics()) {
                ReplicaElectionResult r = new ReplicaElectionResult().setTopic(t.name());
                for (int p = 0; p < t.partitions(); p++) {
                    Errors e = elect(Optional.of(t), t.name(), p, type, self);
                    if (e != Errors.ELECTION_NOT_NEEDED) {
                        r.partitionResult().add(result(p, e));
                    }
                }
                if (!r.partitionResult().isEmpty()) {
                    out.replicaElectionResults().add(r);
                }
            }
        } else {
            for (TopicPartitions t : request.topicPartitions()) {
                Optional<TopicInfo> topic = topics.topic(t.topic());
                ReplicaElectionResult r = new ReplicaElectionResult().setTopic(t.topic());
                t.partitions().forEach(p -> r.partitionResult().add(result(p, elect(topic, t.topic(), p, type, self))));
                out.replicaElectionResults().add(r);
            }
        }
        return CompletableFuture.completedFuture(out.setErrorCode(Errors.NONE.code()));
    }

    private Errors elect(Optional<TopicInfo> topic, String name, int partition, ElectionType type, BrokerNode self) {
        if (!TopicCatalog.hasPartition(topic, partition)) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (leaders.leader(new TopicPartition(name, partition), self).isPresent()) {
            return Errors.ELECTION_NOT_NEEDED;
        }
        return type == ElectionType.UNCLEAN
                ? Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                : Errors.PREFERRED_LEADER_NOT_AVAILABLE;
    }

    private static PartitionResult result(int partition, Errors e) {
        return new PartitionResult()
                .setPartitionId(partition)
                .setErrorCode(e.code())
                .setErrorMessage(e == Errors.NONE ? null : e.message());
    }
}
