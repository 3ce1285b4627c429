package io.kaas.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Self-signed TLS material for tests, made once per test JVM with the JDK's keytool (EC P-256: fast to
 * generate): a broker key pair for CN=localhost with SAN 127.0.0.1, a client key pair for
 * CN=admin,O=kaas (mTLS), truststores trusting each, and the broker certificate as PEM (kcat's CA).
 * For certificate rotation, a second broker key pair and a truststore trusting only it.
 */
public final class TlsMaterial {
    public static final String PASSWORD = "test-store-pass";
    private static TlsMaterial instance;

    public final Path dir;
    public final Path brokerKeystore;
    /** Another broker key pair (CN=localhost-rotated), trusted by clients too: for certificate rotation. */
    public final Path rotatedBrokerKeystore;
    /** Trusts {@link #rotatedBrokerKeystore}'s certificate only: a truststore rotated with it. */
    public final Path rotatedBrokerTruststore;

    public final Path brokerTruststore;
    public final Path brokerCertPem;
    public final Path clientKeystore;
    public final Path clientTruststore;

    private TlsMaterial(Path dir) {
        this.dir = dir;
        this.brokerKeystore = dir.resolve("broker.p12");
        this.rotatedBrokerKeystore = dir.resolve("broker-rotated.p12");
        this.rotatedBrokerTruststore = dir.resolve("broker-rotated-trust.p12");
        this.brokerTruststore = dir.resolve("broker-trust.p12");
        this.brokerCertPem = dir.resolve("broker.pem");
        this.clientKeystore = dir.resolve("client.p12");
        this.clientTruststore = dir.resolve("client-trust.p12");
    }

    public static synchronized TlsMaterial get() {
        if (instance == null) {
            try {
                Path dir = Files.createTempDirectory("kaas-tls");
                TlsMaterial m = new TlsMaterial(dir);
                m.generate();
                instance = m;
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot generate test TLS material with keytool", e);
            }
        }
        return instance;
    }

    private void generate() throws IOException, InterruptedException {
        Path brokerPem = selfSigned("CN=localhost", brokerKeystore);
        trust(brokerPem, clientTruststore);
        Path rotatedPem = selfSigned("CN=localhost-rotated", rotatedBrokerKeystore);
        trust(rotatedPem, clientTruststore);
        trust(rotatedPem, rotatedBrokerTruststore);
        trust(selfSigned("CN=admin,O=kaas", clientKeystore), brokerTruststore);
        java.nio.file.Files.copy(brokerPem, brokerCertPem);
    }

    /** An EC P-256 key pair with a self-signed certificate (SAN 127.0.0.1, localhost) in {@code keystore}; returns the certificate as PEM. */
    private Path selfSigned(String dname, Path keystore) throws IOException, InterruptedException {
        Path pem = dir.resolve(keystore.getFileName() + ".pem");
        keytool(
                "-genkeypair",
                "-alias",
                "key",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-ext",
                "SAN=ip:127.0.0.1,dns:localhost",
                "-validity",
                "30",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "key",
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                pem.toString());
        return pem;
    }

    /** Adds the PEM certificate to {@code truststore} (PKCS12, created when absent). */
    private static void trust(Path pem, Path truststore) throws IOException, InterruptedException {
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                pem.getFileName().toString(),
                "-file",
                pem.toString(),
                "-storetype",
                "PKCS12",
                "-keystore",
                truststore.toString(),
                "-storepass",
                PASSWORD);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }

    /** A TLS handshake with {@code port} on 127.0.0.1 that trusts any certificate and presents none; its session. */
    public static SSLSession handshake(int port, String... protocols) throws Exception {
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(
                null,
                new TrustManager[] {
                    new X509TrustManager() {
                        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                        public X509Certificate[] getAcceptedIssuers() {
                            return new X509Certificate[0];
                        }
                    }
                },
                null);
        try (SSLSocket socket = (SSLSocket) trustAll.getSocketFactory().createSocket("127.0.0.1", port)) {
            if (protocols.length > 0) {
                socket.setEnabledProtocols(protocols);
            }
            socket.startHandshake();
            return socket.getSession();
        }
    }

    /** The subject of the certificate a new TLS connection to {@code port} is shown. */
    public static String servedCertificateSubject(int port) throws Exception {
        return ((X509Certificate) handshake(port).getPeerCertificates()[0])
                .getSubjectX500Principal()
                .getName();
    }

    /** The broker's private key as unencrypted PKCS#8 PEM, for {@code ssl.keystore.type=PEM} with {@code ssl.keystore.key}. */
    public String brokerKeyPem() {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(brokerKeystore)) {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            byte[] pkcs8 = ks.getKey("key", PASSWORD.toCharArray()).getEncoded();
            return "-----BEGIN PRIVATE KEY-----\n"
                    + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(pkcs8)
                    + "\n-----END PRIVATE KEY-----\n";
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The broker's certificate as PEM text. */
    public String brokerCertificatePem() {
        try {
            return java.nio.file.Files.readString(brokerCertPem);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The broker's {@code ssl.*} keys (server.properties spelling). */
    public Map<String, String> brokerSsl() {
        return Map.of(
                "ssl.keystore.location",
                brokerKeystore.toString(),
                "ssl.keystore.password",
                PASSWORD,
                "ssl.key.password",
                PASSWORD,
                "ssl.keystore.type",
                "PKCS12",
                "ssl.truststore.location",
                brokerTruststore.toString(),
                "ssl.truststore.password",
                PASSWORD,
                "ssl.truststore.type",
                "PKCS12");
    }

    /** A kafka-clients client trusting the broker (no client certificate). */
    public Map<String, Object> clientSsl() {
        return Map.of(
                "ssl.truststore.location",
                clientTruststore.toString(),
                "ssl.truststore.password",
                PASSWORD,
                "ssl.truststore.type",
                "PKCS12");
    }

    /** {@link #clientSsl()} plus the client's certificate (CN=admin,O=kaas). */
    public Map<String, Object> clientMtls() {
        Map<String, Object> m = new java.util.HashMap<>(clientSsl());
        m.put("ssl.keystore.location", clientKeystore.toString());
        m.put("ssl.keystore.password", PASSWORD);
        m.put("ssl.key.password", PASSWORD);
        m.put("ssl.keystore.type", "PKCS12");
        return m;
    }
}
