package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.ResourceType;

/** ListGroups with the state (v4+) and type (v5+) filters; groups are of type "classic" or "consumer" (KIP-848). */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequestData> {
    private final GroupCoordinator groups;

    public ListGroupsHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListGroupsRequestData request) {
        Set<String> states = request.statesFilter().stream()
                .map(s -> s.toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        Set<String> types = request.typesFilter().stream()
                .map(s -> s.toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        ListGroupsResponseData response = new ListGroupsResponseData();
        // Apache: DESCRIBE on the cluster lists every group; otherwise only groups the principal may DESCRIBE.
        boolean all = ctx.allowedOnCluster(AclOperation.DESCRIBE);
        for (GroupCoordinator.Listing l : groups.list()) {
            if (!all && !ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, l.groupId())) {
                continue;
            }
            if ((states.isEmpty() || states.contains(l.state().toLowerCase(Locale.ROOT)))
                    && (types.isEmpty() || types.contains(l.type()))) {
                response.groups()
                        .add(new ListGroupsResponseData.ListedGroup()
                                .setGroupId(l.groupId())
                                .setProtocolType(l.protocolType())
                                .setGroupState(l.state())
                                .setGroupType(l.type()));
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
