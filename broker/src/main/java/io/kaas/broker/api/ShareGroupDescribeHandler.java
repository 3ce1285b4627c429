package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** ShareGroupDescribe (KIP-932): each share group's state, epochs, assignor and members with their assignment. */
public final class ShareGroupDescribeHandler implements ApiHandler<ShareGroupDescribeRequestData> {
    private final ShareGroups groups;
    private final GroupIdTypes types;

    public ShareGroupDescribeHandler(ShareGroups groups, GroupCoordinator others) {
        this.groups = groups;
        this.types = new GroupIdTypes(others, groups);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ShareGroupDescribeRequestData request) {
        ShareGroupDescribeResponseData out = new ShareGroupDescribeResponseData();
        for (String id : request.groupIds()) {
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, id)) {
                out.groups()
                        .add(new ShareGroupDescribeResponseData.DescribedGroup()
                                .setGroupId(id)
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                                .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message()));
                continue;
            }
            ShareGroupDescribeResponseData.DescribedGroup g = groups.describe(id);
            if (g.errorCode() == Errors.GROUP_ID_NOT_FOUND.code() && types.isOtherThanShare(id)) {
                g.setErrorMessage(GroupIdTypes.notA("share", id));
            }
            if (request.includeAuthorizedOperations()) {
                g.setAuthorizedOperations(ctx.authorizedOperations(ResourceType.GROUP, id));
            }
            out.groups().add(g);
        }
        return CompletableFuture.completedFuture(out);
    }
}
