package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** Heartbeat: keeps the session alive; REBALANCE_IN_PROGRESS tells the member to rejoin. */
public final class HeartbeatHandler implements ApiHandler<HeartbeatRequestData> {
    private final GroupCoordinator groups;

    public HeartbeatHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, HeartbeatRequestData request) {
        return CompletableFuture.completedFuture(new HeartbeatResponseData()
                .setErrorCode(groups.heartbeat(
                                request.groupId(),
                                request.memberId(),
                                request.groupInstanceId(),
                                request.generationId())
                        .code()));
    }
}
