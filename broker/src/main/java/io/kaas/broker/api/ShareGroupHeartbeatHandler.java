package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** ShareGroupHeartbeat (KIP-932): join, stay and leave a share group; answered at once ({@link ShareGroups}). */
public final class ShareGroupHeartbeatHandler implements ApiHandler<ShareGroupHeartbeatRequestData> {
    private final ShareGroups groups;
    private final GroupIdTypes types;

    public ShareGroupHeartbeatHandler(ShareGroups groups, GroupCoordinator others) {
        this.groups = groups;
        this.types = new GroupIdTypes(others, groups);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ShareGroupHeartbeatRequestData request) {
        // As Apache: READ on the group was checked before; DESCRIBE on every subscribed topic.
        List<String> subscribed = request.subscribedTopicNames();
        if (subscribed != null
                && ctx.allowedNames(AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed)
                                .size()
                        < new HashSet<>(subscribed).size()) {
            return CompletableFuture.completedFuture(new ShareGroupHeartbeatResponseData()
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
        }
        if (request.groupId() != null
                && !groups.isShareGroup(request.groupId())
                && types.isOtherThanShare(request.groupId())) {
            return CompletableFuture.completedFuture(new ShareGroupHeartbeatResponseData()
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage(GroupIdTypes.notA("share", request.groupId())));
        }
        return CompletableFuture.completedFuture(
                groups.heartbeat(request, JoinGroupHandler.clientId(ctx), JoinGroupHandler.clientHost(ctx)));
    }
}
