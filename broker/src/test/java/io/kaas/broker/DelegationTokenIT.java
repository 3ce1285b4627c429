package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.layout.ClusterDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DelegationTokenExpiredException;
import org.apache.kafka.common.errors.DelegationTokenOwnerMismatchException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedByAuthenticationException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delegation tokens with real clients: Apache's {@code kafka-delegation-tokens} (create, describe, renew,
 * expire) and the Admin API over SASL_PLAINTEXT SCRAM, a producer and a consumer logging in with a token
 * ({@code tokenauth=true}), the connections that may not manage tokens, expiry and the sweep, and the
 * token file holding no HMAC.
 */
class DelegationTokenIT {
    private static final String ALICE = "alice-Secret-1";
    private static final String BOB = "bob-Secret-2";

    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        Path data = dir.resolve("data");
        ScramCredentialStore store = ScramCredentialStore.inDataDir(data);
        for (org.apache.kafka.common.security.scram.internals.ScramMechanism m :
                org.apache.kafka.common.security.scram.internals.ScramMechanism.values()) {
            store.upsert("alice", m, ScramCredentialStore.generate(m, ALICE, 4096));
            store.upsert("bob", m, ScramCredentialStore.generate(m, BOB, 4096));
        }
        Map<String, String> s = new HashMap<>();
        s.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512");
        s.put("delegation.token.secret.key", "the-cluster-token-key");
        s.put("delegation.token.expiry.check.interval.ms", "300");
        b = TestBroker.secured(data, s, "SASL_PLAINTEXT://127.0.0.1:0", "PLAINTEXT://127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
    }

    static Map<String, Object> scram(String user, String password, boolean token) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "SCRAM-SHA-256");
        p.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\"" + (token ? " tokenauth=\"true\"" : "") + ";");
        return p;
    }

    static Map<String, Object> withToken(DelegationToken t) {
        return scram(t.tokenInfo().tokenId(), t.hmacAsBase64String(), true);
    }

    private static DelegationToken create(Admin admin, CreateDelegationTokenOptions options) throws Exception {
        return admin.createDelegationToken(options).delegationToken().get();
    }

    @Test
    void aProducerAndAConsumerLogInWithAToken() throws Exception {
        DelegationToken token;
        try (Admin admin = b.admin(scram("alice", ALICE, false))) {
            token = create(admin, new CreateDelegationTokenOptions());
        }
        assertThat(token.tokenInfo().owner()).isEqualTo(new KafkaPrincipal("User", "alice"));
        Map<String, Object> props = withToken(token);
        try (KafkaProducer<byte[], byte[]> producer = b.producer(props)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("token-topic", ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get();
            }
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = b.consumer(props)) {
            consumer.assign(List.of(new TopicPartition("token-topic", 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 10 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(values).hasSize(10).startsWith("v0");

        // Apache's rule: a token-authenticated connection may not make, renew or describe tokens.
        try (Admin viaToken = b.admin(props)) {
            assertThatThrownBy(() -> create(viaToken, new CreateDelegationTokenOptions()))
                    .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
            assertThatThrownBy(() -> viaToken.describeDelegationToken()
                            .delegationTokens()
                            .get())
                    .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
        }
        // The file keeps a hash of each HMAC, never the HMAC.
        String file = Files.readString(ClusterDir.delegationTokens(ClusterDir.of(b.dataDir())));
        assertThat(file).contains(token.tokenInfo().tokenId()).doesNotContain(token.hmacAsBase64String());
    }

    @Test
    void notOverPlaintextAndNotWithAWrongHmac() throws Exception {
        Map<String, Object> plain = new HashMap<>();
        plain.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap("PLAINTEXT"));
        try (Admin admin = b.admin(plain)) {
            assertThatThrownBy(() -> create(admin, new CreateDelegationTokenOptions()))
                    .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
        }
        DelegationToken token;
        try (Admin admin = b.admin(scram("alice", ALICE, false))) {
            token = create(admin, new CreateDelegationTokenOptions());
        }
        String forged = Base64.getEncoder().encodeToString(new byte[64]);
        try (Admin admin = b.admin(scram(token.tokenInfo().tokenId(), forged, true))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get())
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
        // A token id is no user name: without tokenauth, the SCRAM store is asked, and has no such user.
        try (Admin admin = b.admin(scram(token.tokenInfo().tokenId(), token.hmacAsBase64String(), false))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get())
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void renewersAndOwnersOnly() throws Exception {
        try (Admin alice = b.admin(scram("alice", ALICE, false));
                Admin bob = b.admin(scram("bob", BOB, false))) {
            DelegationToken mine = create(alice, new CreateDelegationTokenOptions());
            assertThatThrownBy(() -> bob.renewDelegationToken(mine.hmac())
                            .expiryTimestamp()
                            .get())
                    .hasCauseInstanceOf(DelegationTokenOwnerMismatchException.class);

            DelegationToken shared = create(
                    alice, new CreateDelegationTokenOptions().renewers(List.of(new KafkaPrincipal("User", "bob"))));
            long renewed =
                    bob.renewDelegationToken(shared.hmac()).expiryTimestamp().get();
            assertThat(renewed).isGreaterThanOrEqualTo(shared.tokenInfo().expiryTimestamp());
            assertThat(bob.describeDelegationToken().delegationTokens().get())
                    .anyMatch(t ->
                            t.tokenInfo().tokenId().equals(shared.tokenInfo().tokenId()));
        }
    }

    @Test
    void anExpiredTokenCannotLogInAndIsSweptAway() throws Exception {
        DelegationToken token;
        try (Admin admin = b.admin(scram("alice", ALICE, false))) {
            token = create(admin, new CreateDelegationTokenOptions().maxLifetimeMs(1500));
            assertThat(token.tokenInfo().maxTimestamp() - token.tokenInfo().issueTimestamp())
                    .isEqualTo(1500);
            try (Admin viaToken = b.admin(withToken(token))) {
                assertThat(viaToken.describeCluster().clusterId().get()).isNotEmpty();
            }
            String id = token.tokenInfo().tokenId();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> admin.describeDelegationToken().delegationTokens().get().stream()
                            .noneMatch(t -> t.tokenInfo().tokenId().equals(id)));
            assertThatThrownBy(() -> admin.renewDelegationToken(token.hmac())
                            .expiryTimestamp()
                            .get())
                    .isInstanceOf(ExecutionException.class);
        }
        try (Admin viaToken = b.admin(withToken(token))) {
            assertThatThrownBy(() -> viaToken.describeCluster().clusterId().get())
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
        assertThat(Files.readString(ClusterDir.delegationTokens(ClusterDir.of(b.dataDir()))))
                .doesNotContain(token.tokenInfo().tokenId());
    }

    @Test
    void expiredButNotYetSweptIsRefused() throws Exception {
        // The sweep runs every 300 ms; the renew below may come first, or after it.
        try (Admin admin = b.admin(scram("alice", ALICE, false))) {
            DelegationToken token = create(admin, new CreateDelegationTokenOptions().maxLifetimeMs(200));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> System.currentTimeMillis() > token.tokenInfo().maxTimestamp() + 1);
            assertThatThrownBy(() -> admin.expireDelegationToken(token.hmac())
                            .expiryTimestamp()
                            .get())
                    .satisfies(e -> assertThat(e.getCause())
                            .isInstanceOfAny(
                                    DelegationTokenExpiredException.class,
                                    org.apache.kafka.common.errors.DelegationTokenNotFoundException.class));
        }
    }

    @Test
    void kafkaDelegationTokensCreateDescribeRenewExpire() throws Exception {
        Path config = dir.resolve("alice.properties");
        Files.writeString(
                config,
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"alice\" password=\"" + ALICE + "\";\n");
        String created = tool(config, "--create", "--max-life-time-period", "-1", "--renewer-principal", "User:bob")
                .out();
        String[] row = created.lines()
                .map(String::trim)
                .filter(l -> l.split("\\s+").length >= 4 && l.split("\\s+")[2].equals("User:alice"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(created))
                .trim()
                .split("\\s+");
        String tokenId = row[0];
        String hmac = row[1];
        assertThat(row[2]).isEqualTo("User:alice");
        assertThat(created).contains("[User:bob]");

        assertThat(tool(config, "--describe", "--owner-principal", "User:alice").out())
                .contains(tokenId, hmac);
        assertThat(tool(config, "--renew", "--hmac", hmac, "--renew-time-period", "-1")
                        .out())
                .contains("Completed renew operation");
        assertThat(tool(config, "--expire", "--hmac", hmac, "--expiry-time-period", "-1")
                        .out())
                .contains("Completed expire operation");
        assertThat(tool(config, "--describe").out()).doesNotContain(tokenId);

        try (Admin viaToken = b.admin(scram(tokenId, hmac, true))) {
            assertThatThrownBy(() -> viaToken.describeCluster().clusterId().get())
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    private static ExternalProcess tool(Path config, String... args) throws Exception {
        List<String> all = new ArrayList<>(
                List.of("--bootstrap-server", b.bootstrap("SASL_PLAINTEXT"), "--command-config", config.toString()));
        all.addAll(List.of(args));
        ExternalProcess p = ExternalProcess.java(
                dir, null, "org.apache.kafka.tools.DelegationTokenCommand", all.toArray(String[]::new));
        assertThat(p.exitCode()).as("%s%n%s", all, p).isZero();
        return p;
    }
}
