package io.kaas.broker.api;

import io.kaas.broker.cluster.BrokerNode;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** DescribeCluster: one broker, which is also the controller. */
public final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequestData> {
    private final Function<RequestContext, BrokerNode> node;

    public DescribeClusterHandler(Function<RequestContext, BrokerNode> node) {
        this.node = node;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeClusterRequestData request) {
        BrokerNode self = node.apply(ctx);
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setClusterId(self.clusterId()).setControllerId(self.nodeId()).setEndpointType(request.endpointType());
        response.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(self.nodeId()).setHost(self.host()).setPort(self.port()));
        if (request.includeClusterAuthorizedOperations()) {
            // KIP-430, as Apache: only for who may DESCRIBE the cluster; others get an empty field.
            response.setClusterAuthorizedOperations(ctx.allowedOnCluster(org.apache.kafka.common.acl.AclOperation.DESCRIBE)
                    ? ctx.authorizedOperations(org.apache.kafka.common.resource.ResourceType.CLUSTER, "kafka-cluster") : 0);
        }
        return CompletableFuture.completedFuture(response);
    }
}
