package io.kaas.broker.security;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * What one listener does to a new connection: its security protocol, the TLS engine factory
 * (kafka-clients' {@link DefaultSslEngineFactory}, configured from the listener's {@code ssl.*} keys:
 * PKCS12/JKS/PEM stores, protocols, cipher suites, {@code ssl.client.auth}), the certificate-to-principal
 * rules, and the SASL mechanisms it offers.
 */
public final class ListenerSecurity implements AutoCloseable {
    private final String listenerName;
    private final SecurityProtocol protocol;
    private final SslEngineFactory sslEngines;
    private final SslPrincipalMapper principalMapper;
    private final List<String> saslMechanisms;
    private final int saslMaxReceiveBytes;

    private ListenerSecurity(String listenerName, SecurityProtocol protocol, SslEngineFactory sslEngines,
                             SslPrincipalMapper principalMapper, List<String> saslMechanisms, int saslMaxReceiveBytes) {
        this.listenerName = listenerName;
        this.protocol = protocol;
        this.sslEngines = sslEngines;
        this.principalMapper = principalMapper;
        this.saslMechanisms = saslMechanisms;
        this.saslMaxReceiveBytes = saslMaxReceiveBytes;
    }

    public static ListenerSecurity plaintext(String listenerName) {
        return new ListenerSecurity(listenerName, SecurityProtocol.PLAINTEXT, null, null, List.of(), Integer.MAX_VALUE);
    }

    /** Builds the listener's TLS context now, so a bad keystore fails the start, not the first client. */
    public static ListenerSecurity of(String listenerName, SecurityConfig config) {
        SecurityProtocol protocol = config.protocolOf(listenerName);
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        Map<String, Object> parsed = config.parsedFor(listenerName);
        SslEngineFactory engines = null;
        SslPrincipalMapper mapper = null;
        if (tls) {
            DefaultSslEngineFactory f = new DefaultSslEngineFactory();
            f.configure(parsed);
            engines = f;
            mapper = SslPrincipalMapper.fromRules((String) parsed.get(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG));
        }
        return new ListenerSecurity(listenerName, protocol, engines, mapper,
                sasl ? List.copyOf(config.saslMechanisms(listenerName)) : List.of(),
                (Integer) parsed.get(BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG));
    }

    public String listenerName() {
        return listenerName;
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    public boolean tls() {
        return sslEngines != null;
    }

    public boolean sasl() {
        return !saslMechanisms.isEmpty();
    }

    /**
     * Fetch may hand segment-file regions to sendfile only where nothing has to transform the bytes on
     * their way out: TLS must encrypt them, so TLS listeners use the copying read.
     */
    public boolean zeroCopyFetch() {
        return !tls();
    }

    public List<String> saslMechanisms() {
        return saslMechanisms;
    }

    /** Largest frame before SASL authentication ({@code sasl.server.max.receive.size}, Apache's 512 KiB default). */
    public int saslMaxReceiveBytes() {
        return saslMaxReceiveBytes;
    }

    public SSLEngine newServerEngine(InetSocketAddress peer) {
        return sslEngines.createServerSslEngine(peer.getHostString(), peer.getPort());
    }

    public SslPrincipalMapper principalMapper() {
        return principalMapper;
    }

    @Override
    public void close() {
        if (sslEngines != null) {
            try {
                sslEngines.close();
            } catch (Exception e) {
                // nothing to release that matters at shutdown
            }
        }
    }
}
