package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupDescribe (KIP-848). Classic and unknown groups answer GROUP_ID_NOT_FOUND, as Apache,
 * which sends the admin client on to DescribeGroups for them.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequestData> {
    private final GroupCoordinator groups;

    public ConsumerGroupDescribeHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ConsumerGroupDescribeRequestData request) {
        ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
        for (String id : request.groupIds()) {
            response.groups().add(ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, id) ? groups.consumerDescribe(id, ctx.apiVersion())
                    : new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(id)
                    .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
