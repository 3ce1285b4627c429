package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL/OAUTHBEARER: tokens signed by the identity provider's key (its JWKS in a file here) are
 * validated by kafka-clients' broker-side validator; the principal is the token's subject. A token
 * signed by another key is refused.
 */
class OAuthBearerIT {
    /** kafka-clients 4.x only reads JWKS/token URLs an operator allowed (a JVM system property). */
    private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private static final String ALLOWED_FILES = "org.apache.kafka.sasl.oauthbearer.allowed.files";

    private static final String ISSUER = "https://idp.example";

    @TempDir
    static Path dir;

    static TestBroker b;
    static RsaJsonWebKey issuerKey;
    static String allowedUrlsBefore;
    static String allowedFilesBefore;

    @BeforeAll
    static void start() throws Exception {
        issuerKey = RsaJwkGenerator.generateJwk(2048);
        issuerKey.setKeyId("issuer-key-1");
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, new JsonWebKeySet(issuerKey).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY));
        allowedUrlsBefore = System.getProperty(ALLOWED_URLS);
        allowedFilesBefore = System.getProperty(ALLOWED_FILES);
        System.setProperty(
                ALLOWED_URLS,
                jwks.toUri().toString() + "," + dir.toUri() + "token-ok.jwt," + dir.toUri() + "token-bad.jwt");
        System.setProperty(
                ALLOWED_FILES, jwks + "," + dir.resolve("token-ok.jwt") + "," + dir.resolve("token-bad.jwt"));
        b = TestBroker.secured(
                dir.resolve("data"),
                Map.of(
                        "sasl.enabled.mechanisms",
                        "OAUTHBEARER",
                        "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url",
                        jwks.toUri().toString(),
                        "sasl.oauthbearer.expected.audience",
                        "kaas",
                        "sasl.oauthbearer.expected.issuer",
                        ISSUER),
                "SASL_PLAINTEXT://127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
        restore(ALLOWED_URLS, allowedUrlsBefore);
        restore(ALLOWED_FILES, allowedFilesBefore);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    private static Path token(String file, RsaJsonWebKey signer, String subject) throws Exception {
        JwtClaims claims = new JwtClaims();
        claims.setSubject(subject);
        claims.setAudience("kaas");
        claims.setIssuer(ISSUER);
        claims.setIssuedAtToNow();
        claims.setExpirationTimeMinutesInTheFuture(10);
        claims.setClaim("scope", "kafka");
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(signer.getPrivateKey());
        jws.setKeyIdHeaderValue(signer.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        Path f = dir.resolve(file);
        Files.writeString(f, jws.getCompactSerialization());
        return f;
    }

    private static Map<String, Object> client(Path tokenFile) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "OAUTHBEARER");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        p.put(
                "sasl.login.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        p.put("sasl.oauthbearer.token.endpoint.url", tokenFile.toUri().toString());
        return p;
    }

    @Test
    void tokenSignedByTheIssuerAuthenticatesItsSubject() throws Exception {
        try (Admin admin = b.admin(client(token("token-ok.jwt", issuerKey, "carol")))) {
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
        }
    }

    @Test
    void tokenSignedByAnotherKeyIsRefused() throws Exception {
        RsaJsonWebKey forger = RsaJwkGenerator.generateJwk(2048);
        forger.setKeyId("issuer-key-1");
        try (CapturedLog log = new CapturedLog();
                Admin admin = b.admin(client(token("token-bad.jwt", forger, "mallory")))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
            // The bearer token is a credential: its signature part never reaches the broker's log.
            String signature = Files.readString(dir.resolve("token-bad.jwt")).split("\\.")[2];
            assertThat(log.text()).contains("mechanism OAUTHBEARER").doesNotContain(signature);
        }
    }
}
