package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * JoinGroup: the future completes when the rebalance does (all members rejoined, or the rebalance timeout). The id
 * of a share group is refused INCONSISTENT_GROUP_PROTOCOL, as Apache does ({@link GroupIdTypes}).
 */
public final class JoinGroupHandler implements ApiHandler<JoinGroupRequestData> {
    /** ProtocolName became nullable in v7; older versions need a string. */
    private static final short FIRST_NULLABLE_PROTOCOL_VERSION = 7;

    private final GroupCoordinator groups;
    private final GroupIdTypes types;

    public JoinGroupHandler(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, JoinGroupRequestData request) {
        if (request.groupId() != null && types.isShareGroup(request.groupId())) {
            return CompletableFuture.completedFuture(new JoinGroupResponseData()
                    .setMemberId("")
                    .setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code()));
        }
        return groups.join(request, ctx.apiVersion(), clientId(ctx), clientHost(ctx))
                .thenApply(r -> {
                    if (ctx.apiVersion() < FIRST_NULLABLE_PROTOCOL_VERSION && r.protocolName() == null) {
                        r.setProtocolName("");
                    }
                    return r;
                });
    }

    /** The member's host as groups report it ("/127.0.0.1"), for both group protocols. */
    static String clientHost(RequestContext ctx) {
        return ctx.remote() instanceof InetSocketAddress a
                ? "/" + a.getAddress().getHostAddress()
                : String.valueOf(ctx.remote());
    }

    static String clientId(RequestContext ctx) {
        return ctx.clientId() == null ? "" : ctx.clientId();
    }
}
