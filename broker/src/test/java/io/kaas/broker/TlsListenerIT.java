package io.kaas.broker;

import static io.kaas.broker.TlsMaterial.handshake;
import static io.kaas.broker.TlsMaterial.servedCertificateSubject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS listeners with kafka-clients: SSL produce/consume/admin (the copying Fetch path), a listener
 * that requires client certificates whose principal comes from ssl.principal.mapping.rules, and
 * hostile bytes on a TLS port closing only their own connection.
 */
class TlsListenerIT {
    @TempDir
    static Path dir;

    static TestBroker b;
    static TlsMaterial tls;

    static Path keystore;
    static final String PEM_CIPHER = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";

    @BeforeAll
    static void start() throws Exception {
        tls = TlsMaterial.get();
        Map<String, String> s = new HashMap<>();
        // A copy of its own, so that rotating it does not touch other classes' brokers.
        keystore = Files.copy(tls.brokerKeystore, dir.resolve("broker.p12"));
        // Per-listener stores (listener.name.<name>.ssl.*), as Apache resolves them.
        for (String listener : List.of("ssl", "mtls")) {
            tls.brokerSsl().forEach((k, v) -> s.put("listener.name." + listener + "." + k, v));
            s.put("listener.name." + listener + ".ssl.keystore.location", keystore.toString());
        }
        // PEM listener: key and chain inline, TLS 1.2 and one cipher suite only.
        s.put("listener.name.pem.ssl.keystore.type", "PEM");
        s.put("listener.name.pem.ssl.keystore.key", tls.brokerKeyPem());
        s.put("listener.name.pem.ssl.keystore.certificate.chain", tls.brokerCertificatePem());
        s.put("listener.name.pem.ssl.enabled.protocols", "TLSv1.2");
        s.put("listener.name.pem.ssl.cipher.suites", PEM_CIPHER);
        s.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,PEM:SSL");
        s.put("listener.name.mtls.ssl.client.auth", "required");
        s.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]+),O=kaas$/$1/,DEFAULT");
        s.put("super.users", "User:admin");
        s.put("kaas.ssl.store.reload.check.interval.ms", "100");
        s.put("max.connections.per.ip.overrides", "127.0.0.2:2");
        b = TestBroker.secured(
                dir.resolve("data"),
                s,
                "PLAINTEXT://127.0.0.1:0",
                "SSL://127.0.0.1:0",
                "MTLS://127.0.0.1:0",
                "PEM://127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
    }

    private static Map<String, Object> ssl(String listener, Map<String, Object> tlsProps) {
        Map<String, Object> p = new HashMap<>(tlsProps);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap(listener));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        return p;
    }

    @Test
    void producerConsumerAndAdminOverSsl() throws Exception {
        Map<String, Object> props = ssl("SSL", tls.clientSsl());
        try (KafkaProducer<byte[], byte[]> producer = b.producer(props)) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("tls-topic", ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get();
            }
        }
        List<String> values = new ArrayList<>();
        Map<String, Object> consumerProps = new HashMap<>(props);
        consumerProps.put("group.id", "tls-group");
        try (KafkaConsumer<byte[], byte[]> consumer = b.consumer(consumerProps)) {
            consumer.subscribe(List.of("tls-topic"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 50 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(values).hasSize(50).startsWith("v0").endsWith("v49");
        try (Admin admin = b.admin(props)) {
            // Metadata on the SSL listener names the SSL port, not the first listener's.
            assertThat(admin.describeCluster().nodes().get())
                    .extracting(Node::port)
                    .containsExactly(b.broker().boundPort("SSL"));
        }
    }

    @Test
    void plaintextAndGarbageOnTlsPortCloseOnlyTheirOwnConnection() throws Exception {
        try (Admin admin = b.admin(ssl("SSL", tls.clientSsl()))) {
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
            try (RawKafkaConnection plain = new RawKafkaConnection(b.broker().boundPort("SSL"))) {
                plain.send(
                        ApiKeys.API_VERSIONS,
                        (short) 3,
                        new ApiVersionsRequestData()
                                .setClientSoftwareName("raw")
                                .setClientSoftwareVersion("1"));
                assertThat(plain.closedByBroker()).isTrue();
            }
            try (RawKafkaConnection garbage = new RawKafkaConnection(b.broker().boundPort("SSL"))) {
                byte[] junk = new byte[4096];
                new Random(7).nextBytes(junk);
                junk[0] = 0x16; // looks like a TLS handshake record, then is not one
                garbage.sendBytes(junk);
                assertThat(garbage.closedByBroker()).isTrue();
            }
            assertThat(admin.describeTopics(List.of("tls-other"))
                            .allTopicNames()
                            .toCompletionStage()
                            .toCompletableFuture()
                            .handle((v, t) -> "answered")
                            .get())
                    .isEqualTo("answered");
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
        }
    }

    /** The session a new TLS connection to {@code port} negotiates (trusting any certificate), offering {@code protocols}. */
    @Test
    void pemListenerWithProtocolAndCipherSuite() throws Exception {
        int port = b.broker().boundPort("PEM");
        javax.net.ssl.SSLSession session = handshake(port);
        assertThat(session.getProtocol()).isEqualTo("TLSv1.2");
        assertThat(session.getCipherSuite()).isEqualTo(PEM_CIPHER);
        assertThatThrownBy(() -> handshake(port, "TLSv1.3")).isInstanceOf(javax.net.ssl.SSLException.class);
        try (Admin admin = b.admin(ssl("PEM", tls.clientSsl()))) {
            assertThat(admin.describeCluster().nodes().get())
                    .extracting(Node::port)
                    .containsExactly(port);
        }
    }

    @Test
    void rotatedKeystoreIsServedWithoutRestart() throws Exception {
        int port = b.broker().boundPort("SSL");
        assertThat(servedCertificateSubject(port)).isEqualTo("CN=localhost");
        try (Admin admin = b.admin(ssl("SSL", tls.clientSsl()))) {
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
            Path next = dir.resolve("broker-next.p12");
            Files.copy(tls.rotatedBrokerKeystore, next);
            Files.move(next, keystore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> servedCertificateSubject(port).equals("CN=localhost-rotated"));
            // The connection made before the rotation keeps working, and new clients (trusting both) too.
            assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
        }
        try (Admin fresh = b.admin(ssl("SSL", tls.clientSsl()))) {
            assertThat(fresh.describeCluster().clusterId().get()).isNotEmpty();
        }
    }

    /** Apache's connection quotas: the third connection from 127.0.0.2 (allowed 2) is closed at once. */
    @Test
    void connectionsPerIpAreLimited() throws Exception {
        java.net.InetAddress other = java.net.InetAddress.getByName("127.0.0.2");
        int port = b.broker().boundPort("PLAINTEXT");
        ApiVersionsRequestData hello =
                new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1");
        try (RawKafkaConnection first = new RawKafkaConnection(port, other);
                RawKafkaConnection second = new RawKafkaConnection(port, other)) {
            first.roundTrip(ApiKeys.API_VERSIONS, (short) 3, hello);
            second.roundTrip(ApiKeys.API_VERSIONS, (short) 3, hello);
            try (RawKafkaConnection third = new RawKafkaConnection(port, other)) {
                assertThat(third.closedByBroker()).isTrue();
            }
            // Other addresses are not limited.
            try (RawKafkaConnection local = new RawKafkaConnection(port)) {
                local.roundTrip(ApiKeys.API_VERSIONS, (short) 3, hello);
            }
        }
        // Both closed: 127.0.0.2 may connect again once the broker has seen the closes.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (RawKafkaConnection again = new RawKafkaConnection(port, other)) {
                again.roundTrip(ApiKeys.API_VERSIONS, (short) 3, hello);
                return true;
            } catch (java.io.IOException refused) {
                return false;
            }
        });
    }

    @Test
    void clientCertificateNamesThePrincipal() throws Exception {
        UserScramCredentialUpsertion bob = new UserScramCredentialUpsertion(
                "bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "bob-secret");
        // CN=admin,O=kaas → User:admin by the mapping rule, a super user: may alter credentials.
        try (Admin admin = b.admin(ssl("MTLS", tls.clientMtls()))) {
            admin.alterUserScramCredentials(List.of(bob)).all().get();
            assertThat(admin.describeUserScramCredentials(List.of("bob")).all().get())
                    .containsKey("bob");
        }
        // Without a certificate the principal is User:ANONYMOUS, not a super user.
        try (Admin admin = b.admin(ssl("SSL", tls.clientSsl()))) {
            assertThatThrownBy(() ->
                            admin.alterUserScramCredentials(List.of(bob)).all().get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }
}
