package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/** JoinGroup: the future completes when the rebalance does (all members rejoined, or the rebalance timeout). */
public final class JoinGroupHandler implements ApiHandler<JoinGroupRequestData> {
    /** ProtocolName became nullable in v7; older versions need a string. */
    private static final short FIRST_NULLABLE_PROTOCOL_VERSION = 7;

    private final GroupCoordinator groups;

    public JoinGroupHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, JoinGroupRequestData request) {
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
