package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
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

/** ListGroups with the state (v4+) and type (v5+) filters; groups are of type "classic", "consumer" (KIP-848) or "share" (KIP-932). */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequestData> {
    private final GroupCoordinator groups;
    private final ShareGroups shares;

    public ListGroupsHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.shares = shares;
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
        java.util.List<GroupCoordinator.Listing> listings = new java.util.ArrayList<>(groups.list());
        shares.states().forEach((id, state) -> listings.add(new GroupCoordinator.Listing(id, "share", state, "share")));
        for (GroupCoordinator.Listing l : listings) {
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
