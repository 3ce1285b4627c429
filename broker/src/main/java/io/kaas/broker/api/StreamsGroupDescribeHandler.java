package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * StreamsGroupDescribe (KIP-1071): members, their current and target tasks, and the configured topology. Classic,
 * consumer and unknown groups answer GROUP_ID_NOT_FOUND, as Apache.
 */
public final class StreamsGroupDescribeHandler implements ApiHandler<StreamsGroupDescribeRequestData> {
    private final GroupCoordinator groups;

    public StreamsGroupDescribeHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, StreamsGroupDescribeRequestData request) {
        StreamsGroupDescribeResponseData response = new StreamsGroupDescribeResponseData();
        for (String id : request.groupIds()) {
            StreamsGroupDescribeResponseData.DescribedGroup g =
                    ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, id)
                            ? groups.streamsDescribe(id, request.includeTopologyDescription())
                            : new StreamsGroupDescribeResponseData.DescribedGroup()
                                    .setGroupId(id)
                                    .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                                    .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message());
            if (request.includeAuthorizedOperations() && g.errorCode() == Errors.NONE.code()) {
                g.setAuthorizedOperations(ctx.authorizedOperations(ResourceType.GROUP, id));
            }
            response.groups().add(g);
        }
        return CompletableFuture.completedFuture(response);
    }
}
