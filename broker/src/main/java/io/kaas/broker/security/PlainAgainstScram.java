package io.kaas.broker.security;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The callback kafka-clients' {@code PlainSaslServer} asks to verify a user name and password. kaas
 * keeps no passwords, only SCRAM credentials, so PLAIN is checked against the same store: the offered
 * password is salted and iterated with the user's stored salt and count, and its StoredKey compared
 * (constant time) with the stored one. A user with any SCRAM credential can therefore use PLAIN too;
 * Apache's {@code plain.sasl.jaas.config} user list is not read.
 */
final class PlainAgainstScram implements CallbackHandler {
    private static final List<ScramMechanism> ORDER =
            List.of(ScramMechanism.SCRAM_SHA_512, ScramMechanism.SCRAM_SHA_256);

    private final ScramServer.Credentials credentials;

    PlainAgainstScram(ScramServer.Credentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        String user = null;
        for (Callback c : callbacks) {
            if (c instanceof NameCallback n) {
                user = n.getDefaultName();
            } else if (c instanceof PlainAuthenticateCallback p) {
                p.authenticated(user != null && matches(user, new String(p.password())));
            } else {
                throw new UnsupportedCallbackException(c);
            }
        }
    }

    private boolean matches(String user, String password) {
        for (ScramMechanism m : ORDER) {
            Optional<ScramCredential> c = credentials.lookup(user, m);
            if (c.isPresent()) {
                try {
                    ScramFormatter f = new ScramFormatter(m);
                    byte[] salted =
                            f.saltedPassword(password, c.get().salt(), c.get().iterations());
                    byte[] storedKey = f.hash(f.clientKey(salted));
                    return MessageDigest.isEqual(storedKey, c.get().storedKey());
                } catch (NoSuchAlgorithmException | InvalidKeyException e) {
                    return false;
                }
            }
        }
        return false;
    }
}
