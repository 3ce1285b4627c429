package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** DeleteGroups: groups without members, with their committed offsets. */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequestData> {
    private final GroupCoordinator groups;

    public DeleteGroupsHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteGroupsRequestData request) {
        DeleteGroupsResponseData response = new DeleteGroupsResponseData();
        for (String id : request.groupsNames()) {
            Errors e = ctx.allowed(AclOperation.DELETE, ResourceType.GROUP, id)
                    ? groups.deleteGroup(id)
                    : Errors.GROUP_AUTHORIZATION_FAILED;
            response.results()
                    .add(new DeleteGroupsResponseData.DeletableGroupResult()
                            .setGroupId(id)
                            .setErrorCode(e.code()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
