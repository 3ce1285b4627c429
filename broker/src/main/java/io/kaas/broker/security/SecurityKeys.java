package io.kaas.broker.security;

import io.kaas.protocol.ConnectionLimits;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.server.config.QuotaConfig;

/**
 * Which {@code server.properties} keys belong to {@link SecurityConfig}: the listener security keys kaas
 * applies (globally or as Apache's {@code listener.name.<listener>.<key>}), OAUTHBEARER's, the broker's own
 * inter-broker login, and the authorization, connection-quota and client-quota keys. A key outside them is
 * reported by {@code kaas serve} as not applied, never silently taken. Stateless.
 */
final class SecurityKeys {
    private SecurityKeys() {}

    /**
     * OAUTHBEARER's broker keys (JWKS, expected audience/issuer, claim names), also as Apache's
     * per-mechanism {@code listener.name.<name>.oauthbearer.<key>}; validated by kafka-clients'
     * {@code OAuthBearerValidatorCallbackHandler}.
     */
    static final Set<String> OAUTHBEARER_KEYS = Set.of(
            SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL,
            SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS,
            SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS,
            SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS,
            SaslConfigs.SASL_OAUTHBEARER_EXPECTED_AUDIENCE,
            SaslConfigs.SASL_OAUTHBEARER_EXPECTED_ISSUER,
            SaslConfigs.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS,
            SaslConfigs.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME,
            SaslConfigs.SASL_OAUTHBEARER_SUB_CLAIM_NAME,
            "sasl.oauthbearer.allow.unverified.issuer",
            "sasl.oauthbearer.allow.unverified.audience",
            // Apache's broker OAUTHBEARER setup names these two; kaas always validates with the handler below.
            SaslConfigs.SASL_JAAS_CONFIG,
            BrokerSecurityConfigs.SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG);

    static final String OAUTHBEARER_PREFIX = "oauthbearer.";
    /**
     * The broker's own login for inter-broker requests, Apache's {@code listener.name.<listener>.<mechanism>.sasl.jaas.config}
     * ({@link InterBrokerListener}); never the listener's server side (a PLAIN entry's {@code user_*} list is not read:
     * credentials are the SCRAM store's).
     */
    private static final Set<String> BROKER_LOGIN_KEYS = Set.of(
            "plain." + SaslConfigs.SASL_JAAS_CONFIG,
            "scram-sha-256." + SaslConfigs.SASL_JAAS_CONFIG,
            "scram-sha-512." + SaslConfigs.SASL_JAAS_CONFIG);

    /**
     * The Apache keys kaas applies: the TLS keys of {@code SslConfigs} (except a pluggable engine
     * factory), client auth, principal mapping, the SASL mechanism list, the pre-authentication
     * frame limit and the re-authentication interval. Other broker security keys (principal builders,
     * callback handlers, JAAS, Kerberos, OAUTHBEARER) are not applied and so are reported, not silently taken.
     */
    static final Set<String> APPLIED = applied();

    private static Set<String> applied() {
        Set<String> keys = new TreeSet<>(new ConfigDef().withClientSslSupport().names());
        keys.remove(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG);
        keys.addAll(List.of(
                BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG,
                BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG,
                BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG,
                BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG,
                BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG));
        return Set.copyOf(keys);
    }

    /** Does kaas apply {@code key} (globally, or as {@code listener.name.<listener>.<key>})? */
    static boolean isSecurityKey(String key) {
        if (key.equals(SecurityConfig.PROTOCOL_MAP)
                || key.equals(SecurityConfig.SUPER_USERS)
                || key.equals(SecurityConfig.AUTHORIZER)
                || key.equals(SecurityConfig.ALLOW_EVERYONE_IF_NO_ACL)
                || key.equals(SecurityConfig.LEGACY_SCRAM_NONCE)
                || key.equals(SecurityConfig.SSL_RELOAD_INTERVAL)
                || key.equals(ConnectionLimits.MAX_CONNECTIONS)
                || key.equals(ConnectionLimits.MAX_PER_IP)
                || key.equals(ConnectionLimits.PER_IP_OVERRIDES)
                || key.equals(QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG)
                || key.equals(QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG)
                || InterBrokerListener.isKey(key)) {
            return true;
        }
        if (key.startsWith("listener.name.")) {
            int dot = key.indexOf('.', "listener.name.".length());
            if (dot < 0) {
                return false;
            }
            String rest = key.substring(dot + 1);
            if (BROKER_LOGIN_KEYS.contains(rest)) {
                return true;
            }
            return APPLIED.contains(rest)
                    || (rest.startsWith(OAUTHBEARER_PREFIX)
                            && OAUTHBEARER_KEYS.contains(rest.substring(OAUTHBEARER_PREFIX.length())));
        }
        return APPLIED.contains(key) || (OAUTHBEARER_KEYS.contains(key) && key.startsWith("sasl.oauthbearer."));
    }

    /** Is {@code key} a {@code listener.name.<listener>.<mechanism>.sasl.jaas.config} login entry kaas may read? */
    static boolean isListenerLogin(String key) {
        int dot = key.startsWith("listener.name.") ? key.indexOf('.', "listener.name.".length()) : -1;
        return dot > 0 && BROKER_LOGIN_KEYS.contains(key.substring(dot + 1));
    }
}
