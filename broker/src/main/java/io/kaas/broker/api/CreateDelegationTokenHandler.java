package io.kaas.broker.api;

import io.kaas.broker.security.DelegationTokens;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * CreateDelegationToken ({@code kafka-delegation-tokens --create}): as Apache's broker, refused over a
 * connection that may not manage tokens (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), and a token for another
 * owner needs CREATE_TOKENS on that {@code User:} resource (DELEGATION_TOKEN_AUTHORIZATION_FAILED); the
 * token itself is {@link DelegationTokens}'s.
 */
public final class CreateDelegationTokenHandler implements ApiHandler<CreateDelegationTokenRequestData> {
    /** The requester fields exist from v3 (KIP-373); writing them at older versions fails the encode. */
    private static final short FIRST_REQUESTER_VERSION = 3;

    private final DelegationTokens tokens;

    public CreateDelegationTokenHandler(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, CreateDelegationTokenRequestData request) {
        KafkaPrincipal requester = ctx.principal();
        String ownerName = request.ownerPrincipalName();
        KafkaPrincipal owner = ownerName == null || ownerName.isEmpty()
                ? requester
                : new KafkaPrincipal(request.ownerPrincipalType(), ownerName);
        CreateDelegationTokenResponseData out = new CreateDelegationTokenResponseData()
                .setPrincipalType(owner.getPrincipalType())
                .setPrincipalName(owner.getName());
        if (ctx.apiVersion() >= FIRST_REQUESTER_VERSION) {
            out.setTokenRequesterPrincipalType(requester.getPrincipalType())
                    .setTokenRequesterPrincipalName(requester.getName());
        }
        Errors error;
        if (!DelegationTokens.mayManageTokens(ctx)) {
            error = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED;
        } else if (!owner.equals(requester)
                && !ctx.allowed(AclOperation.CREATE_TOKENS, ResourceType.USER, owner.toString())) {
            error = Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED;
        } else {
            List<KafkaPrincipal> renewers = request.renewers().stream()
                    .map(r -> new KafkaPrincipal(r.principalType(), r.principalName()))
                    .toList();
            DelegationTokens.Created c = tokens.create(requester, owner, renewers, request.maxLifetimeMs());
            error = c.error();
            if (error == Errors.NONE) {
                out.setIssueTimestampMs(c.info().issueTimestamp())
                        .setExpiryTimestampMs(c.info().expiryTimestamp())
                        .setMaxTimestampMs(c.info().maxTimestamp())
                        .setTokenId(c.info().tokenId())
                        .setHmac(c.hmac());
            }
        }
        return CompletableFuture.completedFuture(out.setErrorCode(error.code()));
    }
}
