package io.kaas.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-authentication gate of a SASL listener (between request decoder and dispatcher): until the
 * connection's SASL exchange has succeeded only ApiVersions, SaslHandshake and SaslAuthenticate pass;
 * anything else closes the connection, as Apache's {@code SaslServerAuthenticator} does. Once a
 * connection is authenticated the gate lets everything through until its session lifetime
 * ({@code connections.max.reauth.ms}, KIP-368) passes without a re-authentication.
 */
public final class AuthenticationGate extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AuthenticationGate.class);
    private static final long WARN_INTERVAL_NANOS = 1_000_000_000L;
    /** Unauthenticated clients choose how often this happens: one WARN a second, the rest at DEBUG. */
    private static final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        DecodedRequest request = (DecodedRequest) msg;
        ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
        if (allowedBeforeAuthentication(request.api()) || (session.authenticated() && !session.sessionExpired())) {
            ctx.fireChannelRead(msg);
            return;
        }
        request.release();
        if (session.authenticated()) {
            // KIP-368: the client let its session lifetime pass without re-authenticating (as Apache, close).
            LOG.info(
                    "closing connection from {} on listener {}: SASL session of {} expired (connections.max.reauth.ms) "
                            + "before {}",
                    ctx.channel().remoteAddress(),
                    session.listener().listenerName(),
                    session.principal(),
                    request.api());
        } else {
            long now = System.nanoTime();
            long last = lastWarn.get();
            boolean warn = now - last >= WARN_INTERVAL_NANOS && lastWarn.compareAndSet(last, now);
            String format = "closing connection from {} on listener {}: {} before SASL authentication";
            if (warn) {
                LOG.warn(
                        format,
                        ctx.channel().remoteAddress(),
                        session.listener().listenerName(),
                        request.api());
            } else {
                LOG.debug(
                        format,
                        ctx.channel().remoteAddress(),
                        session.listener().listenerName(),
                        request.api());
            }
        }
        ctx.close();
    }

    static boolean allowedBeforeAuthentication(ApiKeys api) {
        return api == ApiKeys.API_VERSIONS || api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE;
    }
}
