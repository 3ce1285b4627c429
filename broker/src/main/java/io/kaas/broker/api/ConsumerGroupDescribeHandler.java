package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupDescribe (KIP-848). Classic and unknown groups answer GROUP_ID_NOT_FOUND, as Apache,
 * which sends the admin client on to DescribeGroups for them; a share group too, with Apache's message ("Group g is
 * not a consumer group.", {@link GroupIdTypes}).
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequestData> {
    private final GroupCoordinator groups;
    private final GroupIdTypes types;

    public ConsumerGroupDescribeHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ConsumerGroupDescribeRequestData request) {
        ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
        for (String id : request.groupIds()) {
            response.groups()
                    .add(
                            !ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, id)
                                    ? new ConsumerGroupDescribeResponseData.DescribedGroup()
                                            .setGroupId(id)
                                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                                            .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message())
                                    : types.isShareGroup(id)
                                            ? new ConsumerGroupDescribeResponseData.DescribedGroup()
                                                    .setGroupId(id)
                                                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                                                    .setErrorMessage(GroupIdTypes.notA("consumer", id))
                                            : groups.consumerDescribe(id, ctx.apiVersion()));
        }
        if (ctx.access().enabled()) {
            hideGroupsWithUndescribableTopics(ctx, response);
        }
        if (request.includeAuthorizedOperations()) {
            response.groups().stream()
                    .filter(g -> g.errorCode() == Errors.NONE.code())
                    .forEach(g -> g.setAuthorizedOperations(ctx.authorizedOperations(ResourceType.GROUP, g.groupId())));
        }
        return CompletableFuture.completedFuture(response);
    }

    /**
     * Apache 4.x: a group whose members are assigned (or are to be assigned) a topic the principal may
     * not DESCRIBE is not shown; it answers TOPIC_AUTHORIZATION_FAILED with no members instead.
     */
    private static void hideGroupsWithUndescribableTopics(
            RequestContext ctx, ConsumerGroupDescribeResponseData response) {
        List<String> named = response.groups().stream()
                .flatMap(g -> g.members().stream())
                .flatMap(m -> java.util.stream.Stream.of(m.assignment(), m.targetAssignment()))
                .filter(java.util.Objects::nonNull)
                .flatMap(a -> a.topicPartitions().stream())
                .map(ConsumerGroupDescribeResponseData.TopicPartitions::topicName)
                .toList();
        Set<String> describable = ctx.allowedNames(AclOperation.DESCRIBE, ResourceType.TOPIC, named);
        List<ConsumerGroupDescribeResponseData.DescribedGroup> out = new ArrayList<>();
        for (ConsumerGroupDescribeResponseData.DescribedGroup g : response.groups()) {
            boolean hidden = g.members().stream()
                    .flatMap(m -> java.util.stream.Stream.of(m.assignment(), m.targetAssignment()))
                    .filter(java.util.Objects::nonNull)
                    .flatMap(a -> a.topicPartitions().stream())
                    .anyMatch(tp -> !describable.contains(tp.topicName()));
            out.add(
                    hidden
                            ? new ConsumerGroupDescribeResponseData.DescribedGroup()
                                    .setGroupId(g.groupId())
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                    .setErrorMessage(
                                            "The group has described topic(s) that the client is not authorized to describe.")
                            : g);
        }
        response.setGroups(out);
    }
}
