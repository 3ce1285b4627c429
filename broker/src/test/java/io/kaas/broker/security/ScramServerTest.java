package io.kaas.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.security.ScramCredentialStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The SCRAM exchange, client side written here with kafka-clients' formatter: RFC 5802 and librdkafka's legacy nonce. */
class ScramServerTest {
    private static final String PASSWORD = "pw-Ωmega";
    private final List<String> legacySeen = new ArrayList<>();

    private ScramServer server(ScramMechanism m, boolean acceptLegacy) {
        ScramCredential c = ScramCredentialStore.generate(m, PASSWORD, 4096);
        return new ScramServer(
                m,
                (user, mech) -> user.equals("alice") && mech == m ? Optional.of(c) : Optional.empty(),
                acceptLegacy,
                legacySeen::add);
    }

    /** Runs the exchange with {@code password}; {@code legacyNonce} builds the client-final nonce as librdkafka < 2.6.1. */
    private static byte[] exchange(
            ScramServer server,
            ScramMechanism m,
            String user,
            String password,
            boolean legacyNonce,
            String nonceOverride)
            throws Exception {
        ScramFormatter f = new ScramFormatter(m);
        ClientFirstMessage first =
                new ClientFirstMessage(ScramFormatter.saslName(user), f.secureRandomString(), Map.of());
        ServerFirstMessage serverFirst = new ServerFirstMessage(server.evaluateResponse(first.toBytes()));
        assertThat(serverFirst.nonce())
                .startsWith(first.nonce())
                .hasSizeGreaterThan(first.nonce().length());
        String nonce = nonceOverride != null
                ? nonceOverride
                : legacyNonce ? first.nonce() + serverFirst.nonce() : serverFirst.nonce();
        ClientFinalMessage fin = new ClientFinalMessage("n,,".getBytes(StandardCharsets.UTF_8), nonce);
        byte[] salted = f.saltedPassword(password, serverFirst.salt(), serverFirst.iterations());
        fin.proof(f.clientProof(salted, first, serverFirst, fin));
        return server.evaluateResponse(fin.toBytes());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void rfc5802ExchangeCompletes(ScramMechanism m) throws Exception {
        ScramServer s = server(m, true);
        ServerFinalMessage fin = new ServerFinalMessage(exchange(s, m, "alice", PASSWORD, false, null));
        assertThat(fin.error()).isNull();
        assertThat(s.isComplete()).isTrue();
        assertThat(s.getAuthorizationID()).isEqualTo("alice");
        assertThat(legacySeen).isEmpty();
    }

    @Test
    void librdkafkaLegacyNonceIsAcceptedAndReported() throws Exception {
        ScramServer s = server(ScramMechanism.SCRAM_SHA_256, true);
        exchange(s, ScramMechanism.SCRAM_SHA_256, "alice", PASSWORD, true, null);
        assertThat(s.isComplete()).isTrue();
        assertThat(legacySeen).containsExactly("alice");
    }

    @Test
    void legacyNonceIsRefusedWhenTurnedOff() {
        ScramServer s = server(ScramMechanism.SCRAM_SHA_256, false);
        assertThatThrownBy(() -> exchange(s, ScramMechanism.SCRAM_SHA_256, "alice", PASSWORD, true, null))
                .isInstanceOf(SaslException.class)
                .hasMessageContaining("nonce");
        assertThat(s.isComplete()).isFalse();
    }

    @Test
    void anyOtherNonceIsRefusedEvenWithLegacyOn() {
        // CVE-2024-56128: a nonce without the whole fresh server part would allow replaying an old exchange.
        for (String nonce : List.of("replayed-nonce", "")) {
            ScramServer s = server(ScramMechanism.SCRAM_SHA_256, true);
            assertThatThrownBy(() -> exchange(s, ScramMechanism.SCRAM_SHA_256, "alice", PASSWORD, false, nonce))
                    .isInstanceOf(SaslException.class);
        }
    }

    @Test
    void wrongPasswordAndUnknownUserFail() {
        ScramServer s = server(ScramMechanism.SCRAM_SHA_512, true);
        assertThatThrownBy(() -> exchange(s, ScramMechanism.SCRAM_SHA_512, "alice", "wrong", false, null))
                .isInstanceOf(SaslAuthenticationException.class);
        ScramServer unknown = server(ScramMechanism.SCRAM_SHA_512, true);
        assertThatThrownBy(() -> exchange(unknown, ScramMechanism.SCRAM_SHA_512, "mallory", PASSWORD, false, null))
                .isInstanceOf(SaslAuthenticationException.class);
    }
}
