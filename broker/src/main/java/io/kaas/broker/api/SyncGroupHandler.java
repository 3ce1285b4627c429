package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/** SyncGroup: followers' futures complete when the leader's SyncGroup brings the assignment. */
public final class SyncGroupHandler implements ApiHandler<SyncGroupRequestData> {
    private final GroupCoordinator groups;

    public SyncGroupHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, SyncGroupRequestData request) {
        return groups.sync(request).thenApply(r -> r);
    }
}
