package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.txn.TransactionStateStore;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * FindCoordinator: the broker coordinating the key's slot (a group's {@code __consumer_offsets} slot, a transactional
 * id's {@code __transaction_state} slot, as Apache's); a broker on its own names itself for every key. A slot nobody
 * holds now (its broker gone, the controller yet to move it) is COORDINATOR_NOT_AVAILABLE, which clients retry. Share
 * groups get INVALID_REQUEST. v4+ answers each key of the batch on its own.
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
     * With several brokers over one shared directory, each slot is coordinated by the broker the assignment names
     * ({@link PartitionLeaders#groupCoordinator}, {@link PartitionLeaders#transactionCoordinator}), so one process holds
     * each group's and transactional id's state and writes its files.
     */
    public FindCoordinatorHandler(Function<RequestContext, BrokerNode> node, PartitionLeaders leaders) {
        this.node = node;
        this.leaders = leaders;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, FindCoordinatorRequestData request) {
        BrokerNode self = node.apply(ctx);
        Errors error =
                request.keyType() == GROUP || request.keyType() == TRANSACTION ? Errors.NONE : Errors.INVALID_REQUEST;
        String message = error == Errors.NONE
                ? null
                : "kaas coordinates consumer groups and transactions only (key type " + request.keyType() + ")";
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            Errors denied = error == Errors.NONE ? denied(ctx, request.keyType(), request.key()) : Errors.NONE;
            if (denied != Errors.NONE) {
                return CompletableFuture.completedFuture(fill(response, denied, null, null));
            }
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(fill(response, error, message, null));
            }
            Optional<BrokerNode> c = coordinator(self, request.keyType(), request.key());
            return CompletableFuture.completedFuture(
                    c.isPresent()
                            ? fill(response, Errors.NONE, null, c.get())
                            : fill(response, Errors.COORDINATOR_NOT_AVAILABLE, null, null));
        }
        for (String key : request.coordinatorKeys()) {
            Errors denied = error == Errors.NONE ? denied(ctx, request.keyType(), key) : Errors.NONE;
            Errors e = denied != Errors.NONE ? denied : error;
            Optional<BrokerNode> node = e == Errors.NONE ? coordinator(self, request.keyType(), key) : Optional.empty();
            if (e == Errors.NONE && node.isEmpty()) {
                e = Errors.COORDINATOR_NOT_AVAILABLE;
            }
            FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator()
                    .setKey(key)
                    .setErrorCode(e.code())
                    .setErrorMessage(e == error && denied == Errors.NONE ? message : null);
            if (node.isPresent()) {
                c.setNodeId(node.get().nodeId())
                        .setHost(node.get().host())
                        .setPort(node.get().port());
            } else {
                c.setNodeId(-1).setHost("").setPort(-1);
            }
            response.coordinators().add(c);
        }
        return CompletableFuture.completedFuture(response);
    }

    /** The broker coordinating {@code key}'s slot, as the client's listener advertises it; empty while none does. */
    private Optional<BrokerNode> coordinator(BrokerNode self, byte keyType, String key) {
        int id = keyType == GROUP
                ? leaders.groupCoordinator(GroupCoordinator.slotFor(key), self)
                : leaders.transactionCoordinator(TransactionStateStore.slotFor(key), self);
        if (id == self.nodeId()) {
            return Optional.of(self);
        }
        for (BrokerNode b : leaders.brokers(self)) {
            if (b.nodeId() == id) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** Apache: DESCRIBE on the group or transactional id whose coordinator is asked for. */
    private static Errors denied(RequestContext ctx, byte keyType, String key) {
        if (keyType == GROUP) {
            return ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, key)
                    ? Errors.NONE
                    : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return ctx.allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)
                ? Errors.NONE
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    private static FindCoordinatorResponseData fill(
            FindCoordinatorResponseData r, Errors error, String message, BrokerNode node) {
        r.setErrorCode(error.code()).setErrorMessage(message);
        return error == Errors.NONE
                ? r.setNodeId(node.nodeId()).setHost(node.host()).setPort(node.port())
                : r.setNodeId(-1).setHost("").setPort(-1);
    }
}
