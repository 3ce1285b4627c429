package io.kaas.broker.security;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;

/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677) over kafka-clients' message codec and
 * {@link ScramFormatter}. It follows Apache's {@code ScramSaslServer} step for step, including the
 * strict nonce check of the client-final message that fixed CVE-2024-56128 (a client-final message
 * must carry the nonce of this exchange, or a captured exchange could be replayed).
 *
 * <p>Apache's class cannot be reused because of one addition: librdkafka before 2.6.1 (Debian 12
 * ships 2.0.2) builds the client-final nonce as {@code client-nonce + server-first nonce}, where the
 * server-first nonce already starts with the client nonce. With {@code acceptLegacyNonce} exactly that
 * form is accepted too — it still contains the whole fresh server nonce, so replay protection holds —
 * and the listener is told once per exchange so it can log it. Anything else is rejected.
 */
public final class ScramServer implements SaslServer {
    private enum State {
        CLIENT_FIRST,
        CLIENT_FINAL,
        COMPLETE,
        FAILED
    }

    /** Looks a user's credential up for a mechanism. */
    @FunctionalInterface
    public interface Credentials {
        Optional<ScramCredential> lookup(String user, ScramMechanism mechanism);
    }

    /** Looks a delegation token up by its id for a {@code tokenauth=true} login; empty when unknown or expired. */
    @FunctionalInterface
    public interface Tokens {
        Tokens NONE = (id, mechanism) -> Optional.empty();

        Optional<DelegationTokens.Login> lookup(String tokenId, ScramMechanism mechanism);
    }

    /** Apache's only SCRAM extension: log in with a delegation token (its id as user name, its HMAC as password). */
    private static final String TOKEN_AUTH = "tokenauth";

    private final ScramMechanism mechanism;
    private final ScramFormatter formatter;
    private final Credentials credentials;
    private final Tokens tokens;
    private final boolean acceptLegacyNonce;
    private final Consumer<String> legacyNonceSeen;
    private State state = State.CLIENT_FIRST;
    private String username;
    /** Who the exchange authenticates: the user, or a token's owner. */
    private String authorizationId;

    private boolean tokenAuthenticated;
    private long tokenExpiryTimestamp;
    private ScramCredential credential;
    private ClientFirstMessage clientFirst;
    private ServerFirstMessage serverFirst;

    public ScramServer(
            ScramMechanism mechanism,
            Credentials credentials,
            boolean acceptLegacyNonce,
            Consumer<String> legacyNonceSeen) {
        this(mechanism, credentials, Tokens.NONE, acceptLegacyNonce, legacyNonceSeen);
    }

    public ScramServer(
            ScramMechanism mechanism,
            Credentials credentials,
            Tokens tokens,
            boolean acceptLegacyNonce,
            Consumer<String> legacyNonceSeen) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.tokens = tokens;
        this.acceptLegacyNonce = acceptLegacyNonce;
        this.legacyNonceSeen = legacyNonceSeen;
        try {
            this.formatter = new ScramFormatter(mechanism);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(mechanism + " is not available in this JVM", e);
        }
    }

    /** The user named in the client-first message (null before it); for failure logs. */
    public String attemptedUser() {
        return username;
    }

    @Override
    public byte[] evaluateResponse(byte[] response) throws SaslException {
        try {
            return switch (state) {
                case CLIENT_FIRST -> clientFirst(response);
                case CLIENT_FINAL -> clientFinal(response);
                default ->
                    throw new SaslException(
                            "SCRAM exchange already " + state.name().toLowerCase());
            };
        } catch (SaslException | RuntimeException e) {
            state = State.FAILED;
            credential = null;
            throw e;
        }
    }

    private byte[] clientFirst(byte[] response) throws SaslException {
        clientFirst = new ClientFirstMessage(response);
        Map<String, String> extensions = clientFirst.extensions().map();
        if (!Set.of(TOKEN_AUTH).containsAll(extensions.keySet())) {
            throw new SaslException("Unsupported SCRAM extensions " + extensions.keySet());
        }
        username = ScramFormatter.username(clientFirst.saslName());
        String authzId = clientFirst.authorizationId();
        if (clientFirst.extensions().tokenAuthenticated()) {
            DelegationTokens.Login token = tokens.lookup(username, mechanism).orElse(null);
            if (token == null) {
                throw new SaslAuthenticationException("Token Authentication failed: Invalid tokenId : " + username);
            }
            credential = token.credential();
            authorizationId = token.owner();
            tokenAuthenticated = true;
            tokenExpiryTimestamp = token.expiryTimestamp();
        } else {
            credential = credentials.lookup(username, mechanism).orElse(null);
            authorizationId = username;
        }
        if (credential == null) {
            throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
        }
        if (!authzId.isEmpty() && !authzId.equals(username)) {
            throw new SaslAuthenticationException(
                    "Authentication failed: Client requested an authorization id that is different from username");
        }
        if (credential.iterations() < mechanism.minIterations()) {
            throw new SaslException("Iterations " + credential.iterations() + " is less than the minimum "
                    + mechanism.minIterations() + " for " + mechanism.mechanismName());
        }
        serverFirst = new ServerFirstMessage(
                clientFirst.nonce(), formatter.secureRandomString(), credential.salt(), credential.iterations());
        state = State.CLIENT_FINAL;
        return serverFirst.toBytes();
    }

    private byte[] clientFinal(byte[] response) throws SaslException {
        ClientFinalMessage clientFinal = new ClientFinalMessage(response);
        String expected = serverFirst.nonce();
        if (!clientFinal.nonce().equals(expected)) {
            boolean legacy = acceptLegacyNonce && clientFinal.nonce().equals(clientFirst.nonce() + expected);
            if (!legacy) {
                throw new SaslException("Invalid client nonce in the final client message.");
            }
            legacyNonceSeen.accept(username);
        }
        try {
            byte[] storedKey = credential.storedKey();
            // The proof covers the client-final message as sent, legacy nonce included.
            byte[] clientSignature = formatter.clientSignature(storedKey, clientFirst, serverFirst, clientFinal);
            byte[] computed = formatter.storedKey(clientSignature, clientFinal.proof());
            if (!MessageDigest.isEqual(computed, storedKey)) {
                throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
            }
            byte[] serverSignature =
                    formatter.serverSignature(credential.serverKey(), clientFirst, serverFirst, clientFinal);
            credential = null;
            state = State.COMPLETE;
            return new ServerFinalMessage(null, serverSignature).toBytes();
        } catch (InvalidKeyException | IllegalArgumentException e) {
            throw new SaslException("Authentication failed: invalid SCRAM message", e);
        }
    }

    @Override
    public String getMechanismName() {
        return mechanism.mechanismName();
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public String getAuthorizationID() {
        if (!isComplete()) {
            throw new IllegalStateException("Authentication exchange has not completed");
        }
        return authorizationId;
    }

    @Override
    public Object getNegotiatedProperty(String propName) {
        if (!isComplete()) {
            throw new IllegalStateException("Authentication exchange has not completed");
        }
        if (propName.equals(TOKEN_AUTH)) {
            return tokenAuthenticated;
        }
        // SaslInternalConfigs' key: a token's session must not outlive the token (KIP-368).
        if (propName.equals("CREDENTIAL.LIFETIME.MS") && tokenAuthenticated) {
            return tokenExpiryTimestamp;
        }
        return null;
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) {
        throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
        throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
    }

    @Override
    public void dispose() {
        credential = null;
    }
}
