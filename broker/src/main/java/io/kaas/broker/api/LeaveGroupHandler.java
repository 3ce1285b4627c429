package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** LeaveGroup: one member (v0-2) or a batch (v3+, KIP-345, static members by instance id). */
public final class LeaveGroupHandler implements ApiHandler<LeaveGroupRequestData> {
    private static final short FIRST_BATCHED_VERSION = 3;

    private final GroupCoordinator groups;

    public LeaveGroupHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, LeaveGroupRequestData request) {
        LeaveGroupResponseData response = new LeaveGroupResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            return CompletableFuture.completedFuture(response.setErrorCode(
                    groups.leave(request.groupId(), request.memberId(), null).code()));
        }
        for (LeaveGroupRequestData.MemberIdentity m : request.members()) {
            Errors e = groups.leave(request.groupId(), m.memberId(), m.groupInstanceId());
            response.members()
                    .add(new LeaveGroupResponseData.MemberResponse()
                            .setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId())
                            .setErrorCode(e.code()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
