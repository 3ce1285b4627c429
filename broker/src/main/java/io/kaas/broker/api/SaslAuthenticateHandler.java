package io.kaas.broker.api;

import io.kaas.broker.security.SaslAuthentication;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SaslAuthenticate: one SASL token in, the server's challenge out. A failure answers
 * SASL_AUTHENTICATION_FAILED and the connection closes after the response. The session lifetime is
 * 0: kaas does not ask clients to re-authenticate (KIP-368).
 */
public final class SaslAuthenticateHandler implements ApiHandler<SaslAuthenticateRequestData> {
    private final SaslAuthentication sasl;

    public SaslAuthenticateHandler(SaslAuthentication sasl) {
        this.sasl = sasl;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, SaslAuthenticateRequestData request) {
        SaslAuthentication.Outcome o = sasl.authenticate(ctx.session(), request.authBytes());
        return CompletableFuture.completedFuture(new SaslAuthenticateResponseData()
                .setErrorCode(o.error().code()).setErrorMessage(o.message()).setAuthBytes(o.token())
                .setSessionLifetimeMs(0));
    }
}
