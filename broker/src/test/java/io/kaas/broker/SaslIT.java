package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.testing.ExternalTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SASL with real clients on one broker: SASL_SSL with SCRAM-SHA-256/512, SASL_PLAINTEXT with PLAIN
 * (checked against the SCRAM store), wrong passwords, the pre-authentication gate, credentials
 * managed through the Admin API, and librdkafka 2.0.2 (kcat) with its legacy SCRAM nonce.
 */
class SaslIT {
    private static final String ALICE_PASSWORD = "alice-Secret-1";
    private static final long REAUTH_MS = 1000;

    @TempDir
    static Path dir;

    static TestBroker b;
    static TlsMaterial tls;

    @BeforeAll
    static void start() {
        tls = TlsMaterial.get();
        Path data = dir.resolve("data");
        ScramCredentialStore store = ScramCredentialStore.inDataDir(data);
        for (org.apache.kafka.common.security.scram.internals.ScramMechanism m :
                org.apache.kafka.common.security.scram.internals.ScramMechanism.values()) {
            store.upsert("alice", m, ScramCredentialStore.generate(m, ALICE_PASSWORD, 4096));
        }
        Map<String, String> s = new HashMap<>(tls.brokerSsl());
        s.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512");
        s.put("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256");
        // KIP-368 on this listener: every client here re-authenticates about once a second.
        s.put("listener.name.sasl_plaintext.connections.max.reauth.ms", Long.toString(REAUTH_MS));
        b = TestBroker.secured(data, s, "SASL_SSL://127.0.0.1:0", "SASL_PLAINTEXT://127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
    }

    static Map<String, Object> client(String listener, String mechanism, String user, String password) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap(listener));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, listener);
        p.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        if (listener.equals("SASL_SSL")) {
            p.putAll(tls.clientSsl());
        }
        return p;
    }

    private static void produceAndConsume(Map<String, Object> props, String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = b.producer(props)) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get();
            }
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = b.consumer(props)) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 20 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(values).hasSize(20).startsWith("v0").endsWith("v19");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
    void scramOverSaslSsl(String mechanism) throws Exception {
        produceAndConsume(client("SASL_SSL", mechanism, "alice", ALICE_PASSWORD), "scram-" + mechanism.toLowerCase());
    }

    @Test
    void plainOverSaslPlaintextChecksTheScramStore() throws Exception {
        produceAndConsume(client("SASL_PLAINTEXT", "PLAIN", "alice", ALICE_PASSWORD), "plain-topic");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SASL_SSL:SCRAM-SHA-512", "SASL_PLAINTEXT:PLAIN", "SASL_PLAINTEXT:SCRAM-SHA-256"})
    void wrongPasswordIsSaslAuthenticationFailedAndNeverLogged(String listenerAndMechanism) throws Exception {
        String[] lm = listenerAndMechanism.split(":");
        try (CapturedLog log = new CapturedLog();
                Admin admin = b.admin(client(lm[0], lm[1], "alice", "Wrong-Password-42"))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
            assertThat(log.text()).doesNotContain("Wrong-Password-42").doesNotContain(ALICE_PASSWORD);
        }
    }

    @Test
    void onlyApiVersionsAndSaslBeforeAuthentication() throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort("SASL_PLAINTEXT"))) {
            ApiVersionsResponseData versions = raw.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1"));
            assertThat(versions.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id)).isNotNull();
            raw.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData());
            assertThat(raw.closedByBroker()).isTrue();
        }
        // Before authentication a frame may not exceed sasl.server.max.receive.size (512 KiB), not 100 MiB.
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort("SASL_PLAINTEXT"))) {
            raw.sendBytes(java.nio.ByteBuffer.allocate(4).putInt(600 * 1024).array());
            assertThat(raw.closedByBroker()).isTrue();
        }
        // The broker is fine: an authenticated client still works.
        try (Admin admin = b.admin(client("SASL_PLAINTEXT", "SCRAM-SHA-256", "alice", ALICE_PASSWORD))) {
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
        }
    }

    @Test
    void credentialsManagedOnlineAuthenticateAtOnce() throws Exception {
        try (Admin admin = b.admin(client("SASL_SSL", "SCRAM-SHA-256", "alice", ALICE_PASSWORD))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "carol-pw")))
                    .all()
                    .get();
            UserScramCredentialsDescription carol = admin.describeUserScramCredentials(List.of("carol"))
                    .all()
                    .get()
                    .get("carol");
            assertThat(carol.credentialInfos())
                    .extracting(ScramCredentialInfo::mechanism, ScramCredentialInfo::iterations)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_512, 8192));
        }
        try (Admin carol = b.admin(client("SASL_SSL", "SCRAM-SHA-512", "carol", "carol-pw"))) {
            assertThat(carol.describeCluster().clusterId().get()).isNotEmpty();
        }
        assertThat(java.nio.file.Files.readString(io.kaas.storage.layout.ClusterDir.credentials(
                        io.kaas.storage.layout.ClusterDir.of(b.dataDir()))))
                .doesNotContain("carol-pw")
                .contains("\"carol\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256"})
    void clientsReauthenticateWithinTheSessionLifetime(String mechanism) throws Exception {
        try (CapturedLog log = new CapturedLog();
                Admin admin = b.admin(client("SASL_PLAINTEXT", mechanism, "alice", ALICE_PASSWORD))) {
            long end = System.nanoTime() + Duration.ofMillis(5 * REAUTH_MS / 2).toNanos();
            // Requests on one connection across two and a half session lifetimes: kafka-clients re-authenticates in
            // time.
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        admin.describeCluster().clusterId().get();
                        return System.nanoTime() > end;
                    });
            assertThat(log.text()).doesNotContain("expired");
        }
    }

    @Test
    void aSessionNotReauthenticatedIsClosedAtItsNextRequest() throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort("SASL_PLAINTEXT"))) {
            org.apache.kafka.common.message.SaslHandshakeResponseData hs = raw.roundTrip(
                    ApiKeys.SASL_HANDSHAKE,
                    (short) 1,
                    new org.apache.kafka.common.message.SaslHandshakeRequestData().setMechanism("PLAIN"));
            assertThat(hs.errorCode()).isZero();
            org.apache.kafka.common.message.SaslAuthenticateResponseData auth = raw.roundTrip(
                    ApiKeys.SASL_AUTHENTICATE,
                    (short) 2,
                    new org.apache.kafka.common.message.SaslAuthenticateRequestData()
                            .setAuthBytes(("\0alice\0" + ALICE_PASSWORD).getBytes(StandardCharsets.UTF_8)));
            assertThat(auth.errorCode()).isZero();
            assertThat(auth.sessionLifetimeMs()).isEqualTo(REAUTH_MS);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        try {
                            int id = raw.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData());
                            raw.receive(ApiKeys.METADATA, (short) 12, id);
                            return false; // still within the session lifetime
                        } catch (java.io.IOException closed) {
                            return true;
                        }
                    });
        }
    }

    /** Apache's kafka-configs, as its script runs it, adds a user over SASL_SSL; the user can log in at once. */
    @Test
    void kafkaConfigsAddsScramUsers() throws Exception {
        StringBuilder commandConfig = new StringBuilder();
        client("SASL_SSL", "SCRAM-SHA-512", "alice", ALICE_PASSWORD).forEach((k, v) -> {
            if (!k.equals(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
                commandConfig
                        .append(k)
                        .append('=')
                        .append(v.toString().replace("\\", "\\\\"))
                        .append('\n');
            }
        });
        Path config = dir.resolve("admin.properties");
        java.nio.file.Files.writeString(config, commandConfig);
        ExternalProcess p = ExternalProcess.java(
                dir,
                null,
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                b.bootstrap("SASL_SSL"),
                "--command-config",
                config.toString(),
                "--alter",
                "--entity-type",
                "users",
                "--entity-name",
                "dave",
                "--add-config",
                "SCRAM-SHA-256=[iterations=8192,password=dave-pw]");
        assertThat(p.exitCode()).as(p.toString()).isZero();
        assertThat(p.out()).contains("Completed updating config for user dave");
        try (Admin dave = b.admin(client("SASL_PLAINTEXT", "SCRAM-SHA-256", "dave", "dave-pw"))) {
            assertThat(dave.describeUserScramCredentials(List.of("dave"))
                            .all()
                            .get()
                            .get("dave")
                            .credentialInfos())
                    .extracting(ScramCredentialInfo::iterations)
                    .containsExactly(8192);
        }
    }

    /**
     * librdkafka 2.0.2 (Debian 12's kcat) repeats the client nonce in SCRAM's client-final message:
     * Apache 4.x refuses it (CVE-2024-56128 fix), kaas accepts exactly that form and logs it.
     * (librdkafka 2.0.2's SCRAM-SHA-512 fails even against Apache, so -256 only.)
     */
    @Test
    void kcatWithScramSha256OverSaslSsl() throws Exception {
        ExternalTool.KCAT.assumePresent();
        try (CapturedLog log = new CapturedLog()) {
            ExternalProcess p = kcatScram(b, "a\nb\nc\n", "-P", "-t", "kcat-scram");
            assertThat(p.exitCode()).as(p.toString()).isZero();
            ExternalProcess c = kcatScram(b, null, "-C", "-t", "kcat-scram", "-o", "beginning", "-e");
            assertThat(c.out().lines().toList()).as(c.toString()).containsExactly("a", "b", "c");
            if (legacyLibrdkafka()) {
                assertThat(log.text())
                        .contains("librdkafka < 2.6.1 SCRAM client-final nonce")
                        .doesNotContain(ALICE_PASSWORD);
            }
        }
    }

    /** The same kcat against a broker with the legacy form turned off fails: the acceptance is what made it work. */
    @Test
    void legacyNonceOffRefusesOldLibrdkafka() throws Exception {
        ExternalTool.KCAT.assumePresent();
        assumeTrue(legacyLibrdkafka(), "kcat's librdkafka is 2.6.1 or newer: it sends the RFC 5802 nonce");
        Path data = dir.resolve("strict");
        ScramCredentialStore.inDataDir(data)
                .upsert(
                        "alice",
                        org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_256,
                        ScramCredentialStore.generate(
                                org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_256,
                                ALICE_PASSWORD,
                                4096));
        Map<String, String> s = new HashMap<>(tls.brokerSsl());
        s.put("kaas.sasl.scram.accept.legacy.librdkafka.nonce", "false");
        try (TestBroker strict = TestBroker.secured(data, s, "SASL_SSL://127.0.0.1:0")) {
            // -m 3: kcat -L waits for metadata until its timeout after the authentication failure.
            ExternalProcess p = kcatScram(strict, null, "-L", "-m", "3");
            assertThat(p.exitCode()).as(p.toString()).isNotZero();
            assertThat(p.err()).contains("Authentication");
        }
    }

    private ExternalProcess kcatScram(TestBroker broker, String stdin, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                "kcat",
                "-b",
                broker.bootstrap("SASL_SSL"),
                "-X",
                "security.protocol=SASL_SSL",
                "-X",
                "sasl.mechanisms=SCRAM-SHA-256",
                "-X",
                "sasl.username=alice",
                "-X",
                "sasl.password=" + ALICE_PASSWORD,
                "-X",
                "ssl.ca.location=" + tls.brokerCertPem));
        cmd.addAll(List.of(args));
        return ExternalProcess.run(dir, stdin, cmd);
    }

    /** kcat -V names its librdkafka ("librdkafka 2.0.2 builtin.features=..."); before 2.6.1 it repeats the client nonce. */
    private static boolean legacyLibrdkafka() throws Exception {
        String v = ExternalProcess.run(dir, null, List.of("kcat", "-V")).out();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("librdkafka (\\d+)\\.(\\d+)\\.(\\d+)")
                .matcher(v);
        if (!m.find()) {
            return false;
        }
        int version = Integer.parseInt(m.group(1)) * 10_000
                + Integer.parseInt(m.group(2)) * 100
                + Integer.parseInt(m.group(3));
        return version < 20601;
    }
}
