package io.kaas.broker.api;

import io.kaas.broker.cluster.BrokerNode;
import io.kaas.broker.cluster.PartitionLeaders;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * FindCoordinator: this broker for every group and every transactional id (it is the group and the
 * transaction coordinator); share groups get INVALID_REQUEST.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequestData> {
    private static final byte GROUP = 0, TRANSACTION = 1;
    private static final short FIRST_BATCHED_VERSION = 4;

    private final Function<RequestContext, BrokerNode> node;
    private final PartitionLeaders leaders;

    public FindCoordinatorHandler(Function<RequestContext, BrokerNode> node) {
        this(node, PartitionLeaders.single());
    }

    /**
     * With several brokers over one shared directory, every group and transactional id is coordinated by
     * one broker, the one {@link PartitionLeaders#controllerId} names, so that one process holds each
     * group's state and writes its files.
     */
    public FindCoordinatorHandler(Function<RequestContext, BrokerNode> node, PartitionLeaders leaders) {
        this.node = node;
        this.leaders = leaders;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, FindCoordinatorRequestData request) {
        BrokerNode self = coordinator(node.apply(ctx));
        Errors error = request.keyType() == GROUP || request.keyType() == TRANSACTION ? Errors.NONE : Errors.INVALID_REQUEST;
        String message = error == Errors.NONE ? null
                : "kaas coordinates consumer groups and transactions only (key type " + request.keyType() + ")";
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            Errors denied = error == Errors.NONE ? denied(ctx, request.keyType(), request.key()) : Errors.NONE;
            return CompletableFuture.completedFuture(denied != Errors.NONE ? fill(response, denied, null, self)
                    : fill(response, error, message, self));
        }
        for (String key : request.coordinatorKeys()) {
            Errors denied = error == Errors.NONE ? denied(ctx, request.keyType(), key) : Errors.NONE;
            FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setKey(key)
                    .setErrorCode((denied != Errors.NONE ? denied : error).code()).setErrorMessage(denied != Errors.NONE ? null : message);
            if (error == Errors.NONE && denied == Errors.NONE) {
                c.setNodeId(self.nodeId()).setHost(self.host()).setPort(self.port());
            } else {
                c.setNodeId(-1).setHost("").setPort(-1);
            }
            response.coordinators().add(c);
        }
        return CompletableFuture.completedFuture(response);
    }

    /** The coordinating broker as the client's listener advertises it (this broker, or the one the cluster names). */
    private BrokerNode coordinator(BrokerNode self) {
        int id = leaders.controllerId(self);
        for (BrokerNode b : leaders.brokers(self)) {
            if (b.nodeId() == id) {
                return b;
            }
        }
        return self;
    }

    /** Apache: DESCRIBE on the group or transactional id whose coordinator is asked for. */
    private static Errors denied(RequestContext ctx, byte keyType, String key) {
        if (keyType == GROUP) {
            return ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, key) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return ctx.allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key) ? Errors.NONE : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    private static FindCoordinatorResponseData fill(FindCoordinatorResponseData r, Errors error, String message, BrokerNode self) {
        r.setErrorCode(error.code()).setErrorMessage(message);
        return error == Errors.NONE ? r.setNodeId(self.nodeId()).setHost(self.host()).setPort(self.port())
                : r.setNodeId(-1).setHost("").setPort(-1);
    }

}
