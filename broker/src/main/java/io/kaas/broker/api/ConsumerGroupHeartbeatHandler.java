package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ConsumerGroupHeartbeat (KIP-848): join, stay, reconcile and leave in one request; never parks, the
 * coordinator answers each heartbeat at once with the member's epoch and (when it changed) assignment.
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler<ConsumerGroupHeartbeatRequestData> {
    private final GroupCoordinator groups;

    public ConsumerGroupHeartbeatHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ConsumerGroupHeartbeatRequestData request) {
        return CompletableFuture.completedFuture(groups.consumerHeartbeat(request, ctx.apiVersion(),
                JoinGroupHandler.clientId(ctx), JoinGroupHandler.clientHost(ctx)));
    }
}
