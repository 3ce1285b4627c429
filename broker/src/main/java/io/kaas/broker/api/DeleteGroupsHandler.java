package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteGroups: groups without members, with their committed offsets; a share group (KIP-932,
 * {@code kafka-share-groups.sh --delete}, Admin#deleteShareGroups) with its share-partition state.
 */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequestData> {
    private final GroupCoordinator groups;
    private final ShareGroups shares;

    public DeleteGroupsHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.shares = shares;
    }

    private Errors delete(String id) {
        Errors share = shares.delete(id);
        return share != null ? share : groups.deleteGroup(id);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteGroupsRequestData request) {
        DeleteGroupsResponseData response = new DeleteGroupsResponseData();
        for (String id : request.groupsNames()) {
            Errors e = ctx.allowed(AclOperation.DELETE, ResourceType.GROUP, id)
                    ? delete(id)
                    : Errors.GROUP_AUTHORIZATION_FAILED;
            response.results()
                    .add(new DeleteGroupsResponseData.DeletableGroupResult()
                            .setGroupId(id)
                            .setErrorCode(e.code()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
