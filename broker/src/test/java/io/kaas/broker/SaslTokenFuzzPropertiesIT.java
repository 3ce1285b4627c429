package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.security.ScramCredentialStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Hostile SaslAuthenticate tokens (random bytes, and SCRAM/PLAIN-shaped strings with random parts)
 * after a valid SaslHandshake: each is answered SASL_AUTHENTICATION_FAILED (or, for a well-formed
 * SCRAM client-first, a challenge) and a failed connection is closed; nothing ever reaches Netty's
 * pipeline tail, and a fresh connection is served after every case.
 */
class SaslTokenFuzzPropertiesIT {
    private Path dir;
    private TestBroker broker;
    private CapturedLog log;
    private int port;

    @BeforeProperty
    void start() throws IOException {
        dir = Files.createTempDirectory("kaas-sasl-fuzz");
        log = new CapturedLog();
        Path data = dir.resolve("data");
        ScramCredentialStore.inDataDir(data)
                .upsert(
                        "alice",
                        ScramMechanism.SCRAM_SHA_256,
                        ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_256, "alice-pw", 4096));
        broker = TestBroker.secured(
                data,
                Map.of("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"),
                "SASL_PLAINTEXT://127.0.0.1:0");
        port = broker.broker().boundPort();
    }

    @AfterProperty
    void stop() throws IOException {
        try {
            assertThat(log.text())
                    .doesNotContain("reached at the tail of the pipeline")
                    .doesNotContain("alice-pw");
        } finally {
            broker.close();
            log.close();
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Provide
    Arbitrary<byte[]> tokens() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(600);
        Arbitrary<String> junk = Arbitraries.strings().all().ofMaxLength(80);
        Arbitrary<byte[]> scramShaped = junk.tuple3()
                .map(t -> ("n," + t.get1() + ",n=" + t.get2() + ",r=" + t.get3()).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> plainShaped =
                junk.tuple3().map(t -> (t.get1() + "\0" + t.get2() + "\0" + t.get3()).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> finalShaped =
                junk.tuple2().map(t -> ("c=biws,r=" + t.get1() + ",p=" + t.get2()).getBytes(StandardCharsets.UTF_8));
        return Arbitraries.oneOf(random, scramShaped, plainShaped, finalShaped);
    }

    @Property(tries = 300)
    void hostileTokensCloseOneConnectionNeverTheBroker(
            @ForAll("tokens") byte[] first, @ForAll("tokens") byte[] second, @ForAll("mechanisms") String mechanism)
            throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(port)) {
            SaslHandshakeResponseData hs = c.roundTrip(
                    ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism(mechanism));
            assertThat(hs.errorCode()).isEqualTo(Errors.NONE.code());
            SaslAuthenticateResponseData r1 = authenticate(c, first);
            if (r1.errorCode() == Errors.NONE.code()) {
                // A well-formed client-first for a known user: the second token is the client-final.
                SaslAuthenticateResponseData r2 = authenticate(c, second);
                assertThat(r2.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            } else {
                assertThat(r1.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
                assertThat(r1.errorMessage()).startsWith("Authentication failed during authentication");
            }
            assertThat(c.closedByBroker()).isTrue();
        }
        try (RawKafkaConnection fresh = new RawKafkaConnection(port)) {
            ApiVersionsResponseData v = fresh.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));
            assertThat(v.errorCode()).isZero();
        }
    }

    @Provide
    Arbitrary<String> mechanisms() {
        return Arbitraries.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    }

    private static SaslAuthenticateResponseData authenticate(RawKafkaConnection c, byte[] token) throws IOException {
        short v = ApiKeys.SASL_AUTHENTICATE.latestVersion();
        int id = c.send(ApiKeys.SASL_AUTHENTICATE, v, new SaslAuthenticateRequestData().setAuthBytes(token));
        ByteBuffer body = c.receive(ApiKeys.SASL_AUTHENTICATE, v, id);
        SaslAuthenticateResponseData r = new SaslAuthenticateResponseData();
        r.read(new ByteBufferAccessor(body), v);
        return r;
    }
}
