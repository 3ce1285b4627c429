package io.kaas.broker.api;

import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** DescribeCluster: the live brokers and the controller, as Metadata names them ({@link PartitionLeaders}). */
public final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequestData> {
    private final Function<RequestContext, BrokerNode> node;
    private final PartitionLeaders leaders;

    public DescribeClusterHandler(Function<RequestContext, BrokerNode> node) {
        this(node, PartitionLeaders.single());
    }

    public DescribeClusterHandler(Function<RequestContext, BrokerNode> node, PartitionLeaders leaders) {
        this.node = node;
        this.leaders = leaders;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeClusterRequestData request) {
        BrokerNode self = node.apply(ctx);
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setClusterId(self.clusterId())
                .setControllerId(leaders.controllerId(self))
                .setEndpointType(request.endpointType());
        for (BrokerNode b : leaders.brokers(self)) {
            response.brokers()
                    .add(new DescribeClusterResponseData.DescribeClusterBroker()
                            .setBrokerId(b.nodeId())
                            .setHost(b.host())
                            .setPort(b.port()));
        }
        if (request.includeClusterAuthorizedOperations()) {
            // KIP-430, as Apache: only for who may DESCRIBE the cluster; others get an empty field.
            response.setClusterAuthorizedOperations(
                    ctx.allowedOnCluster(org.apache.kafka.common.acl.AclOperation.DESCRIBE)
                            ? ctx.authorizedOperations(
                                    org.apache.kafka.common.resource.ResourceType.CLUSTER, "kafka-cluster")
                            : 0);
        }
        return CompletableFuture.completedFuture(response);
    }
}
