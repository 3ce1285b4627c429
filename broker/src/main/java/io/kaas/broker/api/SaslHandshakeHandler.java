package io.kaas.broker.api;

import io.kaas.broker.security.SaslAuthentication;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslHandshake v1: picks the mechanism; the tokens follow in SaslAuthenticate. v0 is advertised
 * because librdkafka enables SASL only when the broker's range includes 0, but a v0 handshake (raw
 * tokens without Kafka framing follow, clients before Kafka 1.0) is answered UNSUPPORTED_VERSION and
 * the connection closes: every current client uses v1.
 */
public final class SaslHandshakeHandler implements ApiHandler<SaslHandshakeRequestData> {
    private static final short FIRST_FRAMED_VERSION = 1;

    private final SaslAuthentication sasl;

    public SaslHandshakeHandler(SaslAuthentication sasl) {
        this.sasl = sasl;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, SaslHandshakeRequestData request) {
        Errors error;
        if (ctx.apiVersion() < FIRST_FRAMED_VERSION) {
            if (ctx.session().listener().sasl()) {
                ctx.session().fail();
            }
            error = Errors.UNSUPPORTED_VERSION;
        } else {
            error = sasl.handshake(ctx.session(), request.mechanism());
        }
        return CompletableFuture.completedFuture(new SaslHandshakeResponseData()
                .setErrorCode(error.code())
                .setMechanisms(new ArrayList<>(ctx.session().listener().saslMechanisms())));
    }
}
