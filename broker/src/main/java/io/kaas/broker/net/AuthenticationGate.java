package io.kaas.broker.net;

import io.kaas.broker.security.ClientSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-authentication gate of a SASL listener (between request decoder and dispatcher): until the
 * connection's SASL exchange has succeeded only ApiVersions, SaslHandshake and SaslAuthenticate pass;
 * anything else closes the connection, as Apache's {@code SaslServerAuthenticator} does. Once a
 * connection is authenticated the gate lets everything through.
 */
public final class AuthenticationGate extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AuthenticationGate.class);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        DecodedRequest request = (DecodedRequest) msg;
        ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
        if (session.authenticated() || allowedBeforeAuthentication(request.api())) {
            ctx.fireChannelRead(msg);
            return;
        }
        request.release();
        LOG.warn("closing connection from {} on listener {}: {} before SASL authentication",
                ctx.channel().remoteAddress(), session.listener().listenerName(), request.api());
        ctx.close();
    }

    static boolean allowedBeforeAuthentication(ApiKeys api) {
        return api == ApiKeys.API_VERSIONS || api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE;
    }
}
