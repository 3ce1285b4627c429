package io.kaas.broker.security;

import io.kaas.protocol.ClientSession;
import io.kaas.security.ScramCredentialStore;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * SaslHandshake and SaslAuthenticate for one broker: picks the mechanism's server (kafka-clients'
 * {@link PlainSaslServer} with {@link PlainAgainstScram}, or {@link ScramServer}, which also logs in
 * with {@link DelegationTokens}), feeds it the
 * client's tokens, and moves the connection's {@link ClientSession} along. Any failure — wrong
 * password, unknown user, a token that does not parse — answers SASL_AUTHENTICATION_FAILED and closes
 * that one connection, as Apache does; it is logged (rate-limited) without the token.
 */
public final class SaslAuthentication {
    /** What SaslAuthenticate answers. */
    public record Outcome(Errors error, String message, byte[] token, long sessionLifetimeMs) {
        Outcome(Errors error, String message, byte[] token) {
            this(error, message, token, 0);
        }
    }

    private final ScramCredentialStore store;
    private final DelegationTokens tokens;
    private final boolean acceptLegacyNonce;
    private final AuthenticationFailureLog log = new AuthenticationFailureLog();

    public SaslAuthentication(ScramCredentialStore store, DelegationTokens tokens, boolean acceptLegacyNonce) {
        this.store = store;
        this.tokens = tokens;
        this.acceptLegacyNonce = acceptLegacyNonce;
    }

    public ScramCredentialStore store() {
        return store;
    }

    /** SaslHandshake: NONE, UNSUPPORTED_SASL_MECHANISM or ILLEGAL_SASL_STATE. */
    public Errors handshake(ClientSession session, String mechanism) {
        if (!session.listener().sasl()) {
            // Apache answers this on a listener without SASL and keeps the connection.
            return Errors.ILLEGAL_SASL_STATE;
        }
        boolean reauthentication =
                session.stage() == ClientSession.SaslStage.AUTHENTICATED && session.saslUser() != null;
        if (reauthentication) {
            // KIP-368: only when offered (a session lifetime was sent), and with the same mechanism.
            if (session.listener().reauthMs() <= 0 || !mechanism.equals(session.mechanism())) {
                session.fail();
                return Errors.ILLEGAL_SASL_STATE;
            }
        } else if (session.stage() != ClientSession.SaslStage.AWAIT_HANDSHAKE) {
            session.fail();
            return Errors.ILLEGAL_SASL_STATE;
        }
        if (!session.listener().saslMechanisms().contains(mechanism)) {
            // The response lists ours; the connection closes after it, as Apache's does.
            session.fail();
            return Errors.UNSUPPORTED_SASL_MECHANISM;
        }
        session.startSasl(mechanism, newServer(session, mechanism));
        return Errors.NONE;
    }

    private SaslServer newServer(ClientSession session, String mechanism) {
        if (mechanism.equals(PlainSaslServer.PLAIN_MECHANISM)) {
            return new PlainSaslServer(new PlainAgainstScram(store::lookup));
        }
        if (mechanism.equals(OAuthBearerLoginModule.OAUTHBEARER_MECHANISM)) {
            return new OAuthBearerSaslServer(session.listener().oauthValidator());
        }
        return new ScramServer(
                ScramMechanism.forMechanismName(mechanism),
                store::lookup,
                tokens::login,
                acceptLegacyNonce,
                user -> log.legacyNonce(session, user));
    }

    /**
     * One SaslAuthenticate token. {@code version} 1+ carries a session lifetime: with
     * {@code connections.max.reauth.ms} set, the client must re-authenticate within it (KIP-368), as
     * the same user, or its connection is closed at its next request after the deadline.
     */
    public Outcome authenticate(ClientSession session, byte[] token, short version) {
        if (!session.listener().sasl()) {
            return new Outcome(Errors.ILLEGAL_SASL_STATE, "this listener does not use SASL", new byte[0]);
        }
        SaslServer server = session.saslServer();
        if (session.stage() != ClientSession.SaslStage.AWAIT_AUTHENTICATE || server == null) {
            session.fail();
            return new Outcome(
                    Errors.ILLEGAL_SASL_STATE, "SaslAuthenticate without a SaslHandshake first", new byte[0]);
        }
        try {
            byte[] challenge = server.evaluateResponse(token);
            long lifetimeMs = 0;
            if (server.isComplete()) {
                String user = server.getAuthorizationID();
                String before = session.saslUser();
                if (before != null && !before.equals(user)) {
                    throw new SaslException("re-authentication as User:" + user + " on a connection of User:" + before);
                }
                lifetimeMs = version >= 1 ? lifetime(session, server) : 0;
                boolean withToken = Boolean.TRUE.equals(server.getNegotiatedProperty("tokenauth"));
                session.authenticatedAs(user, lifetimeMs, withToken);
            }
            return new Outcome(Errors.NONE, null, challenge == null ? new byte[0] : challenge, lifetimeMs);
        } catch (SaslException | RuntimeException e) {
            // RuntimeException: SaslAuthenticationException, and any parse failure of a hostile token.
            String user = server instanceof ScramServer s ? s.attemptedUser() : plainUser(token);
            log.failed(session, session.mechanism(), user, e.getMessage());
            session.fail();
            // Apache's wording; never the token or what the store holds.
            return new Outcome(
                    Errors.SASL_AUTHENTICATION_FAILED,
                    "Authentication failed during authentication due to " + "invalid credentials with SASL mechanism "
                            + session.mechanism(),
                    new byte[0]);
        }
    }

    /**
     * KIP-368: {@code connections.max.reauth.ms}, shortened to the token's own expiry for OAUTHBEARER
     * (a session must not outlive its credential); 0 when re-authentication is off.
     */
    private static long lifetime(ClientSession session, SaslServer server) {
        long reauth = session.listener().reauthMs();
        if (reauth <= 0) {
            return 0;
        }
        Object expiresAt = server.getNegotiatedProperty("CREDENTIAL.LIFETIME.MS");
        if (expiresAt instanceof Long at) {
            return Math.max(1, Math.min(reauth, at - System.currentTimeMillis()));
        }
        return reauth;
    }

    /** The user name of a PLAIN token ({@code authzid NUL user NUL password}), for the failure log only. */
    private static String plainUser(byte[] token) {
        String s = new String(token, java.nio.charset.StandardCharsets.UTF_8);
        int first = s.indexOf('\0');
        int second = first < 0 ? -1 : s.indexOf('\0', first + 1);
        return second < 0 ? null : s.substring(first + 1, second);
    }
}
