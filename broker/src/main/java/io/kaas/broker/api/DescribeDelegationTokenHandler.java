package io.kaas.broker.api;

import io.kaas.broker.security.DelegationTokens;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeDelegationTokenRequestData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData.DescribedDelegationToken;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData.DescribedDelegationTokenRenewer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.security.DelegationTokenManager;

/**
 * DescribeDelegationToken ({@code kafka-delegation-tokens --describe}): the tokens the caller owns or may
 * renew, and others where it has DESCRIBE on the {@code DelegationToken} or DESCRIBE_TOKENS on the owner's
 * {@code User:} resource — Apache's {@link DelegationTokenManager#filterToken}.
 */
public final class DescribeDelegationTokenHandler implements ApiHandler<DescribeDelegationTokenRequestData> {
    /** The requester fields exist from v3 (KIP-373); writing them at older versions fails the encode. */
    private static final short FIRST_REQUESTER_VERSION = 3;

    private final DelegationTokens tokens;

    public DescribeDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeDelegationTokenRequestData request) {
        DescribeDelegationTokenResponseData out = new DescribeDelegationTokenResponseData();
        if (!DelegationTokens.mayManageTokens(ctx)) {
            return done(out.setErrorCode(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code()));
        }
        if (!tokens.enabled()) {
            return done(out.setErrorCode(Errors.DELEGATION_TOKEN_AUTH_DISABLED.code()));
        }
        Optional<List<KafkaPrincipal>> owners = request.owners() == null
                ? Optional.empty()
                : Optional.of(request.owners().stream()
                        .map(o -> new KafkaPrincipal(o.principalType(), o.principalName()))
                        .toList());
        KafkaPrincipal me = ctx.principal();
        List<DelegationToken> found = tokens.describe(t -> DelegationTokenManager.filterToken(
                new KafkaPrincipal(me.getPrincipalType(), me.getName()),
                owners,
                t,
                id -> ctx.allowed(AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, id),
                owner -> ctx.allowed(AclOperation.DESCRIBE_TOKENS, ResourceType.USER, owner.toString())));
        for (DelegationToken token : found) {
            TokenInformation i = token.tokenInfo();
            DescribedDelegationToken described = new DescribedDelegationToken();
            if (ctx.apiVersion() >= FIRST_REQUESTER_VERSION) {
                described
                        .setTokenRequesterPrincipalType(i.tokenRequester().getPrincipalType())
                        .setTokenRequesterPrincipalName(i.tokenRequester().getName());
            }
            out.tokens()
                    .add(described
                            .setPrincipalType(i.owner().getPrincipalType())
                            .setPrincipalName(i.owner().getName())
                            .setIssueTimestamp(i.issueTimestamp())
                            .setExpiryTimestamp(i.expiryTimestamp())
                            .setMaxTimestamp(i.maxTimestamp())
                            .setTokenId(i.tokenId())
                            .setHmac(token.hmac())
                            .setRenewers(i.renewers().stream()
                                    .map(r -> new DescribedDelegationTokenRenewer()
                                            .setPrincipalType(r.getPrincipalType())
                                            .setPrincipalName(r.getName()))
                                    .toList()));
        }
        return done(out.setErrorCode(Errors.NONE.code()));
    }

    private static CompletableFuture<ApiMessage> done(DescribeDelegationTokenResponseData d) {
        return CompletableFuture.completedFuture(d);
    }
}
