package io.kaas.broker.security;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator;
import org.apache.kafka.common.security.oauthbearer.JwtValidator;
import org.apache.kafka.common.security.oauthbearer.JwtValidatorException;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callback kafka-clients' {@code OAuthBearerSaslServer} asks to validate a token: kafka-clients'
 * own {@link DefaultJwtValidator} (signature against the JWKS, expiry, audience, issuer), as Apache's
 * {@code OAuthBearerValidatorCallbackHandler} does — but without that handler's WARN line per
 * rejected token, which prints the whole token (a bearer credential) into the log. Rejections reach
 * {@link AuthenticationFailureLog} (rate-limited) and, at DEBUG, the reason with any JWT cut out.
 */
final class OAuthBearerTokenValidator implements AuthenticateCallbackHandler {
    private static final Logger LOG = LoggerFactory.getLogger(OAuthBearerTokenValidator.class);
    /** Three base64url parts: a JWS compact serialization. */
    private static final Pattern JWT = Pattern.compile("[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*");

    private final JwtValidator validator;

    private OAuthBearerTokenValidator(JwtValidator validator) {
        this.validator = validator;
    }

    /**
     * Configured from the listener's typed keys. Without {@code sasl.oauthbearer.jwks.endpoint.url}
     * kafka-clients would fall back to its client-side validator, which checks no signature: refused.
     */
    static OAuthBearerTokenValidator of(Map<String, Object> parsed) {
        if (parsed.get(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL) == null) {
            throw new ConfigException(
                    SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL,
                    null,
                    "OAUTHBEARER needs the identity provider's JWKS endpoint (https URL or file) to verify token signatures");
        }
        DefaultJwtValidator v = new DefaultJwtValidator();
        v.configure(
                parsed,
                OAuthBearerLoginModule.OAUTHBEARER_MECHANISM,
                List.of(new AppConfigurationEntry(
                        OAuthBearerLoginModule.class.getName(),
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
                        Map.of())));
        return new OAuthBearerTokenValidator(v);
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (c instanceof OAuthBearerValidatorCallback v) {
                try {
                    v.token(validator.validate(v.tokenValue()));
                } catch (JwtValidatorException e) {
                    LOG.debug(
                            "OAUTHBEARER token rejected: {}",
                            JWT.matcher(String.valueOf(e.getMessage())).replaceAll("[token]"));
                    v.error("invalid_token", null, null);
                }
            } else if (c instanceof OAuthBearerExtensionsValidatorCallback x) {
                // As Apache's handler: extensions are accepted (kaas does not use them).
                x.inputExtensions().map().keySet().forEach(x::valid);
            } else {
                throw new UnsupportedCallbackException(c);
            }
        }
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        // configured by of(...)
    }

    @Override
    public void close() {
        try {
            validator.close();
        } catch (IOException e) {
            // nothing to release that matters at shutdown
        }
    }
}
