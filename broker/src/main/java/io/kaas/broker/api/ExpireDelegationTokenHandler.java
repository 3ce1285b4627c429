package io.kaas.broker.api;

import io.kaas.broker.security.DelegationTokens;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ExpireDelegationTokenRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.security.DelegationTokenManager;

/**
 * ExpireDelegationToken ({@code kafka-delegation-tokens --expire}): by the token's owner or a renewer; a
 * negative period deletes the token at once.
 */
public final class ExpireDelegationTokenHandler implements ApiHandler<ExpireDelegationTokenRequestData> {
    private final DelegationTokens tokens;

    public ExpireDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ExpireDelegationTokenRequestData request) {
        if (!DelegationTokens.mayManageTokens(ctx)) {
            return CompletableFuture.completedFuture(new ExpireDelegationTokenResponseData()
                    .setErrorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code())
                    .setExpiryTimestampMs(DelegationTokenManager.ERROR_TIMESTAMP));
        }
        DelegationTokens.Changed c = tokens.expire(request.hmac(), ctx.principal(), request.expiryTimePeriodMs());
        return CompletableFuture.completedFuture(new ExpireDelegationTokenResponseData()
                .setErrorCode(c.error().code())
                .setExpiryTimestampMs(c.expiryTimestamp()));
    }
}
