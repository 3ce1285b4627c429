package io.kaas.broker.api;

import io.kaas.broker.security.SaslAuthentication;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SaslAuthenticate: one SASL token in, the server's challenge out. A failure answers
 * SASL_AUTHENTICATION_FAILED and the connection closes after the response. From v1 the response
 * carries the session lifetime ({@code connections.max.reauth.ms}; 0 = no re-authentication, KIP-368).
 */
public final class SaslAuthenticateHandler implements ApiHandler<SaslAuthenticateRequestData> {
    private final SaslAuthentication sasl;

    public SaslAuthenticateHandler(SaslAuthentication sasl) {
        this.sasl = sasl;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, SaslAuthenticateRequestData request) {
        SaslAuthentication.Outcome o = sasl.authenticate(ctx.session(), request.authBytes(), ctx.apiVersion());
        return CompletableFuture.completedFuture(new SaslAuthenticateResponseData()
                .setErrorCode(o.error().code())
                .setErrorMessage(o.message())
                .setAuthBytes(o.token())
                .setSessionLifetimeMs(o.sessionLifetimeMs()));
    }
}
