package io.kaas.bench;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages;

/**
 * A SCRAM login over raw requests (SaslHandshake v1, then two SaslAuthenticate v2 round trips, KIP-152),
 * with kafka-clients' own {@link ScramFormatter} and {@link ScramMessages}. Unlike kafka-clients' SaslClient it
 * keeps the salted password per salt and iteration count: PBKDF2 with 4,096 iterations costs milliseconds of CPU,
 * and a load generator on one core that paid it per connection would measure itself, not the broker. The
 * broker's side (nonce, proof check, server signature) is the same work either way. Thread-safe.
 */
final class ScramLogin {
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;

    private final ScramMechanism mechanism;
    private final String user;
    private final String password;
    private final Map<String, byte[]> saltedPasswords = new ConcurrentHashMap<>();
    private final ThreadLocal<ScramFormatter> formatter;

    /** {@code mechanism}: SCRAM-SHA-256 or SCRAM-SHA-512. */
    ScramLogin(String mechanism, String user, String password) {
        this.mechanism = ScramMechanism.forMechanismName(mechanism);
        this.user = user;
        this.password = password;
        this.formatter = ThreadLocal.withInitial(() -> {
            try {
                return new ScramFormatter(this.mechanism);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Logs {@code c} in; completes on its event loop once the broker's signature checked out. */
    CompletableFuture<Void> login(RawKafkaChannel c) {
        ScramFormatter f = formatter.get();
        ScramMessages.ClientFirstMessage first =
                new ScramMessages.ClientFirstMessage(ScramFormatter.saslName(user), f.secureRandomString(), Map.of());
        return c.send(
                        ApiKeys.SASL_HANDSHAKE,
                        HANDSHAKE_VERSION,
                        new SaslHandshakeRequestData().setMechanism(mechanism.mechanismName()))
                .thenCompose(body -> {
                    SaslHandshakeResponseData r =
                            new SaslHandshakeResponseData(new ByteBufferAccessor(body), HANDSHAKE_VERSION);
                    check(r.errorCode(), "SaslHandshake");
                    return authenticate(c, first.toBytes());
                })
                .thenCompose(serverFirstBytes -> {
                    try {
                        ScramFormatter fm = formatter.get();
                        ScramMessages.ServerFirstMessage serverFirst =
                                new ScramMessages.ServerFirstMessage(serverFirstBytes);
                        byte[] salted = saltedPasswords.computeIfAbsent(
                                Arrays.toString(serverFirst.salt()) + "/" + serverFirst.iterations(),
                                k -> salt(fm, serverFirst));
                        ScramMessages.ClientFinalMessage last = new ScramMessages.ClientFinalMessage(
                                "n,,".getBytes(java.nio.charset.StandardCharsets.UTF_8), serverFirst.nonce());
                        last.proof(fm.clientProof(salted, first, serverFirst, last));
                        byte[] expected = fm.serverSignature(fm.serverKey(salted), first, serverFirst, last);
                        return authenticate(c, last.toBytes()).thenAccept(serverFinalBytes -> {
                            try {
                                ScramMessages.ServerFinalMessage fin =
                                        new ScramMessages.ServerFinalMessage(serverFinalBytes);
                                if (fin.error() != null || !MessageDigest.isEqual(fin.serverSignature(), expected)) {
                                    throw new CompletionException(
                                            new SaslException("bad server signature: " + fin.error()));
                                }
                            } catch (SaslException e) {
                                throw new CompletionException(e);
                            }
                        });
                    } catch (SaslException | GeneralSecurityException e) {
                        throw new CompletionException(e);
                    }
                });
    }

    private byte[] salt(ScramFormatter f, ScramMessages.ServerFirstMessage serverFirst) {
        try {
            return f.saltedPassword(password, serverFirst.salt(), serverFirst.iterations());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CompletableFuture<byte[]> authenticate(RawKafkaChannel c, byte[] token) {
        return c.send(
                        ApiKeys.SASL_AUTHENTICATE,
                        AUTHENTICATE_VERSION,
                        new SaslAuthenticateRequestData().setAuthBytes(token))
                .thenApply((ByteBuffer body) -> {
                    SaslAuthenticateResponseData r =
                            new SaslAuthenticateResponseData(new ByteBufferAccessor(body), AUTHENTICATE_VERSION);
                    check(r.errorCode(), "SaslAuthenticate: " + r.errorMessage());
                    return r.authBytes();
                });
    }

    private static void check(short errorCode, String what) {
        if (errorCode != Errors.NONE.code()) {
            throw new CompletionException(new SaslException(what + " failed: " + Errors.forCode(errorCode)));
        }
    }
}
