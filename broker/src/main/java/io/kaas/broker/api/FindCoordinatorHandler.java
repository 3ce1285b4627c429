package io.kaas.broker.api;

import io.kaas.broker.cluster.BrokerNode;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator: this broker for every group and every transactional id (it is the group and the
 * transaction coordinator); share groups get INVALID_REQUEST.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequestData> {
    private static final byte GROUP = 0, TRANSACTION = 1;
    private static final short FIRST_BATCHED_VERSION = 4;

    private final Function<RequestContext, BrokerNode> node;

    public FindCoordinatorHandler(Function<RequestContext, BrokerNode> node) {
        this.node = node;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, FindCoordinatorRequestData request) {
        BrokerNode self = node.apply(ctx);
        Errors error = request.keyType() == GROUP || request.keyType() == TRANSACTION ? Errors.NONE : Errors.INVALID_REQUEST;
        String message = error == Errors.NONE ? null
                : "kaas coordinates consumer groups and transactions only (key type " + request.keyType() + ")";
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            return CompletableFuture.completedFuture(fill(response, error, message, self));
        }
        for (String key : request.coordinatorKeys()) {
            FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setKey(key)
                    .setErrorCode(error.code()).setErrorMessage(message);
            if (error == Errors.NONE) {
                c.setNodeId(self.nodeId()).setHost(self.host()).setPort(self.port());
            } else {
                c.setNodeId(-1).setHost("").setPort(-1);
            }
            response.coordinators().add(c);
        }
        return CompletableFuture.completedFuture(response);
    }

    private static FindCoordinatorResponseData fill(FindCoordinatorResponseData r, Errors error, String message, BrokerNode self) {
        r.setErrorCode(error.code()).setErrorMessage(message);
        return error == Errors.NONE ? r.setNodeId(self.nodeId()).setHost(self.host()).setPort(self.port())
                : r.setNodeId(-1).setHost("").setPort(-1);
    }

}
