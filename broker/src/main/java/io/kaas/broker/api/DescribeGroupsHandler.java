package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeGroups. An unknown group, or a KIP-848 consumer group, is state Dead (v0-5) or
 * GROUP_ID_NOT_FOUND (v6+, KIP-1043), as in Kafka; so is a share group, with Apache's message ("Group g is not a
 * classic group.", {@link GroupIdTypes}).
 */
public final class DescribeGroupsHandler implements ApiHandler<DescribeGroupsRequestData> {
    private static final short FIRST_NOT_FOUND_VERSION = 6;

    private final GroupCoordinator groups;
    private final GroupIdTypes types;

    public DescribeGroupsHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeGroupsRequestData request) {
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String id : request.groups()) {
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, id)) {
                response.groups()
                        .add(new DescribeGroupsResponseData.DescribedGroup()
                                .setGroupId(id)
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            if (types.isShareGroup(id)) {
                response.groups().add(dead(ctx, id, GroupIdTypes.notA("classic", id)));
                continue;
            }
            response.groups()
                    .add(groups.describe(id)
                            .map(d -> ctx.apiVersion() >= FIRST_NOT_FOUND_VERSION
                                            || d.errorCode() != Errors.GROUP_ID_NOT_FOUND.code()
                                    ? d
                                    : d.setErrorCode((short) 0).setErrorMessage(null))
                            .orElseGet(() -> dead(ctx, id, "group " + id + " not found")));
        }
        if (request.includeAuthorizedOperations()) {
            // KIP-430, as Apache: each described group's allowed operations.
            response.groups().stream()
                    .filter(g -> g.errorCode() == Errors.NONE.code())
                    .forEach(g -> g.setAuthorizedOperations(ctx.authorizedOperations(ResourceType.GROUP, g.groupId())));
        }
        return CompletableFuture.completedFuture(response);
    }

    /** A group described as Dead: GROUP_ID_NOT_FOUND with {@code message} from v6 on, no error before. */
    private static DescribeGroupsResponseData.DescribedGroup dead(RequestContext ctx, String id, String message) {
        DescribeGroupsResponseData.DescribedGroup d = new DescribeGroupsResponseData.DescribedGroup()
                .setGroupId(id)
                .setGroupState("Dead")
                .setProtocolType("")
                .setProtocolData("");
        if (ctx.apiVersion() >= FIRST_NOT_FOUND_VERSION) {
            d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(message);
        }
        return d;
    }
}
