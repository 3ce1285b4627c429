package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupHeartbeat (KIP-848): join, stay, reconcile and leave in one request; never parks, the
 * coordinator answers each heartbeat at once with the member's epoch and (when it changed) assignment.
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler<ConsumerGroupHeartbeatRequestData> {
    private final GroupCoordinator groups;
    private final GroupIdTypes types;

    public ConsumerGroupHeartbeatHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ConsumerGroupHeartbeatRequestData request) {
        // Apache (KIP-848): a member may subscribe only to topics it may DESCRIBE (READ on the group was checked
        // before).
        java.util.List<String> subscribed = request.subscribedTopicNames();
        if (subscribed != null
                && ctx.allowedNames(AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed)
                                .size()
                        < new java.util.HashSet<>(subscribed).size()) {
            return CompletableFuture.completedFuture(new ConsumerGroupHeartbeatResponseData()
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
        }
        if (request.groupId() != null && types.isShareGroup(request.groupId())) {
            return CompletableFuture.completedFuture(new ConsumerGroupHeartbeatResponseData()
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage(GroupIdTypes.notA("consumer", request.groupId())));
        }
        return CompletableFuture.completedFuture(groups.consumerHeartbeat(
                request, ctx.apiVersion(), JoinGroupHandler.clientId(ctx), JoinGroupHandler.clientHost(ctx)));
    }
}
