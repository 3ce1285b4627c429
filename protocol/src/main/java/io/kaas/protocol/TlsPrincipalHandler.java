package io.kaas.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After the TLS handshake of an SSL listener, names the connection's principal from the client
 * certificate as Apache's {@code DefaultKafkaPrincipalBuilder} does: the certificate's distinguished
 * name (RFC 2253) through {@code ssl.principal.mapping.rules}; no verified client certificate means
 * {@code User:ANONYMOUS}. On SASL_SSL the SASL user replaces it later. A failed handshake (a
 * plaintext client, garbage) closes this connection with one log line.
 */
public final class TlsPrincipalHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(TlsPrincipalHandler.class);

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
            if (!done.isSuccess()) {
                // The cause reaches exceptionCaught too, where the dispatcher logs it once.
                LOG.debug(
                        "closing connection from {} on listener {}: TLS handshake failed: {}",
                        ctx.channel().remoteAddress(),
                        session.listener().listenerName(),
                        done.cause().toString());
                ctx.close();
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            try {
                if (ssl.engine().getSession().getPeerPrincipal() instanceof X500Principal x500) {
                    session.principal(
                            "User:" + session.listener().principalMapper().getName(x500.getName()));
                }
            } catch (SSLPeerUnverifiedException e) {
                // no client certificate (ssl.client.auth=none or requested and not sent): stays ANONYMOUS
            } catch (IOException e) {
                LOG.warn(
                        "closing connection from {}: no ssl.principal.mapping.rules rule matches its certificate: {}",
                        ctx.channel().remoteAddress(),
                        e.getMessage());
                ctx.close();
                return;
            }
        }
        super.userEventTriggered(ctx, evt);
    }
}
