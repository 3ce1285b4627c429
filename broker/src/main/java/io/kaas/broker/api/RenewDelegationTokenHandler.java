package io.kaas.broker.api;

import io.kaas.broker.security.DelegationTokens;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.security.DelegationTokenManager;

/** RenewDelegationToken ({@code kafka-delegation-tokens --renew}): by the token's owner or a renewer. */
public final class RenewDelegationTokenHandler implements ApiHandler<RenewDelegationTokenRequestData> {
    private final DelegationTokens tokens;

    public RenewDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, RenewDelegationTokenRequestData request) {
        if (!DelegationTokens.mayManageTokens(ctx)) {
            return CompletableFuture.completedFuture(new RenewDelegationTokenResponseData()
                    .setErrorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code())
                    .setExpiryTimestampMs(DelegationTokenManager.ERROR_TIMESTAMP));
        }
        DelegationTokens.Changed c = tokens.renew(request.hmac(), ctx.principal(), request.renewPeriodMs());
        return CompletableFuture.completedFuture(new RenewDelegationTokenResponseData()
                .setErrorCode(c.error().code())
                .setExpiryTimestampMs(c.expiryTimestamp()));
    }
}
