package io.kaas.broker;

import io.kaas.broker.api.AlterUserScramCredentialsHandler;
import io.kaas.broker.api.CreateAclsHandler;
import io.kaas.broker.api.CreateDelegationTokenHandler;
import io.kaas.broker.api.DeleteAclsHandler;
import io.kaas.broker.api.DescribeAclsHandler;
import io.kaas.broker.api.DescribeDelegationTokenHandler;
import io.kaas.broker.api.DescribeUserScramCredentialsHandler;
import io.kaas.broker.api.ExpireDelegationTokenHandler;
import io.kaas.broker.api.RenewDelegationTokenHandler;
import io.kaas.broker.api.SaslAuthenticateHandler;
import io.kaas.broker.api.SaslHandshakeHandler;
import io.kaas.broker.security.DelegationTokens;
import io.kaas.broker.security.SaslAuthentication;
import io.kaas.protocol.RequestInvoker;
import io.kaas.security.DelegationTokenStore;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.layout.ClusterDir;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Authentication and authorization APIs: SASL, SCRAM credentials, delegation tokens and ACLs.
 */
final class SecurityApis {
    private SecurityApis() {}

    /**
     * SaslHandshake/SaslAuthenticate (served even without a SASL listener, as Apache does; there they
     * answer ILLEGAL_SASL_STATE), the SCRAM credential APIs over {@code __cluster/credentials.json}, and the ACL APIs.
     */
    static void register(RequestInvoker invoker, ApiHandlers.Parts p) {
        ScramCredentialStore credentials = new ScramCredentialStore(ClusterDir.credentials(p.clusterDir()));
        DelegationTokens tokens = delegationTokens(invoker, p);
        SaslAuthentication sasl =
                new SaslAuthentication(credentials, tokens, p.security().acceptLegacyScramNonce());
        invoker.register(
                ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_HANDSHAKE.latestVersion(), new SaslHandshakeHandler(sasl));
        invoker.register(
                ApiKeys.SASL_AUTHENTICATE,
                ApiKeys.SASL_AUTHENTICATE.latestVersion(),
                new SaslAuthenticateHandler(sasl));
        invoker.register(
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS.latestVersion(),
                new DescribeUserScramCredentialsHandler(credentials));
        invoker.register(ApiKeys.DESCRIBE_ACLS, ApiKeys.DESCRIBE_ACLS.latestVersion(), new DescribeAclsHandler());
        invoker.register(ApiKeys.CREATE_ACLS, ApiKeys.CREATE_ACLS.latestVersion(), new CreateAclsHandler());
        invoker.register(ApiKeys.DELETE_ACLS, ApiKeys.DELETE_ACLS.latestVersion(), new DeleteAclsHandler());
        invoker.register(
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS.latestVersion(),
                new AlterUserScramCredentialsHandler(credentials, p.security().superUsers()));
    }

    /**
     * The delegation-token APIs over {@code __cluster/delegation-tokens.json}, and the sweep that deletes expired
     * tokens every {@code delegation.token.expiry.check.interval.ms} on the broker's timer (stopped with it).
     */
    private static DelegationTokens delegationTokens(RequestInvoker invoker, ApiHandlers.Parts p) {
        DelegationTokens tokens = new DelegationTokens(
                p.security().delegationTokenSettings(),
                new DelegationTokenStore(ClusterDir.delegationTokens(p.clusterDir())),
                System::currentTimeMillis);
        invoker.register(
                ApiKeys.CREATE_DELEGATION_TOKEN,
                ApiKeys.CREATE_DELEGATION_TOKEN.latestVersion(),
                new CreateDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.RENEW_DELEGATION_TOKEN,
                ApiKeys.RENEW_DELEGATION_TOKEN.latestVersion(),
                new RenewDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.EXPIRE_DELEGATION_TOKEN,
                ApiKeys.EXPIRE_DELEGATION_TOKEN.latestVersion(),
                new ExpireDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.DESCRIBE_DELEGATION_TOKEN,
                ApiKeys.DESCRIBE_DELEGATION_TOKEN.latestVersion(),
                new DescribeDelegationTokenHandler(tokens));
        if (tokens.enabled()) {
            long every = tokens.sweepIntervalMs();
            p.timer().scheduleWithFixedDelay(() -> sweep(tokens), every, every, TimeUnit.MILLISECONDS);
        }
        return tokens;
    }

    private static void sweep(DelegationTokens tokens) {
        try {
            tokens.sweep();
        } catch (RuntimeException e) {
            // A disk fault: logged, and the next sweep tries again (expired tokens cannot log in meanwhile).
            org.slf4j.LoggerFactory.getLogger(SecurityApis.class)
                    .warn("delegation token sweep failed: {}", e.getMessage());
        }
    }
}
