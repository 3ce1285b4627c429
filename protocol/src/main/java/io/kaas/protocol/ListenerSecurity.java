package io.kaas.protocol;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one listener does to a new connection: its security protocol, the TLS engine factory
 * (kafka-clients' {@link DefaultSslEngineFactory}, configured from the listener's {@code ssl.*} keys:
 * PKCS12/JKS/PEM stores, protocols, cipher suites, {@code ssl.client.auth}), the certificate-to-principal
 * rules, and the SASL mechanisms it offers.
 */
public final class ListenerSecurity implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerSecurity.class);
    private static final String OAUTHBEARER = "OAUTHBEARER";

    private final String listenerName;
    private final SecurityProtocol protocol;
    /** Replaced when a keystore or truststore file changes ({@link #reloadIfChanged()}); new connections take the newest. */
    private volatile SslEngineFactory sslEngines;

    private final Map<String, Object> sslConfigs;
    private final SslPrincipalMapper principalMapper;
    private final List<String> saslMechanisms;
    private final int saslMaxReceiveBytes;
    private final long reauthMs;
    /** kafka-clients' JWT validator (JWKS-backed) when the listener offers OAUTHBEARER; null otherwise. */
    private final AuthenticateCallbackHandler oauthValidator;

    private ListenerSecurity(
            String listenerName,
            SecurityProtocol protocol,
            SslEngineFactory sslEngines,
            Map<String, Object> sslConfigs,
            SslPrincipalMapper principalMapper,
            List<String> saslMechanisms,
            int saslMaxReceiveBytes,
            long reauthMs,
            AuthenticateCallbackHandler oauthValidator) {
        this.reauthMs = reauthMs;
        this.oauthValidator = oauthValidator;
        this.sslConfigs = sslConfigs;
        this.listenerName = listenerName;
        this.protocol = protocol;
        this.sslEngines = sslEngines;
        this.principalMapper = principalMapper;
        this.saslMechanisms = saslMechanisms;
        this.saslMaxReceiveBytes = saslMaxReceiveBytes;
    }

    public static ListenerSecurity plaintext(String listenerName) {
        return new ListenerSecurity(
                listenerName, SecurityProtocol.PLAINTEXT, null, Map.of(), null, List.of(), Integer.MAX_VALUE, 0, null);
    }

    /**
     * Builds the listener's TLS context now, so a bad keystore fails the start, not the first client.
     *
     * @param parsed          the listener's security keys, typed (its {@code ssl.*}, {@code sasl.*}, {@code connections.*})
     * @param saslMechanisms  the mechanisms it offers (ignored unless {@code protocol} is a SASL one)
     * @param oauthValidators the JWT validator for the listener's keys, built when it offers OAUTHBEARER
     */
    public static ListenerSecurity of(
            String listenerName,
            SecurityProtocol protocol,
            Map<String, Object> parsed,
            List<String> saslMechanisms,
            Function<Map<String, Object>, ? extends AuthenticateCallbackHandler> oauthValidators) {
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        SslEngineFactory engines = null;
        SslPrincipalMapper mapper = null;
        if (tls) {
            engines = newEngineFactory(parsed);
            mapper = SslPrincipalMapper.fromRules(
                    (String) parsed.get(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG));
        }
        List<String> mechanisms = sasl ? List.copyOf(saslMechanisms) : List.of();
        return new ListenerSecurity(
                listenerName,
                protocol,
                engines,
                parsed,
                mapper,
                mechanisms,
                (Integer) parsed.get(BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG),
                (Long) parsed.get(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG),
                mechanisms.contains(OAUTHBEARER) ? oauthValidators.apply(parsed) : null);
    }

    private static SslEngineFactory newEngineFactory(Map<String, Object> parsed) {
        DefaultSslEngineFactory f = new DefaultSslEngineFactory();
        f.configure(parsed);
        return f;
    }

    /**
     * Rebuilds the TLS context when a keystore or truststore file changed since it was loaded
     * (kafka-clients' {@code shouldBeRebuilt} compares modification times), so certificates can be
     * rotated without a restart. Open connections keep their session; new ones get the new
     * certificate. A store that does not load (half-written, wrong password) keeps the old context.
     *
     * @return true when it reloaded
     */
    public boolean reloadIfChanged() {
        SslEngineFactory current = sslEngines;
        try {
            if (current == null || !current.shouldBeRebuilt(sslConfigs)) {
                return false;
            }
            sslEngines = newEngineFactory(sslConfigs);
        } catch (RuntimeException e) {
            LOG.warn(
                    "listener {}: keystore or truststore changed but does not load, keeping the previous one: {}",
                    listenerName,
                    e.getMessage());
            return false;
        }
        LOG.info("listener {}: keystore or truststore changed; new connections use the reloaded one", listenerName);
        closeQuietly(current);
        return true;
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

    /** The OAUTHBEARER token validator, or null when the listener does not offer OAUTHBEARER. */
    public AuthenticateCallbackHandler oauthValidator() {
        return oauthValidator;
    }

    /** KIP-368 session lifetime ({@code connections.max.reauth.ms}); 0 = clients never re-authenticate. */
    public long reauthMs() {
        return reauthMs;
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
        closeQuietly(sslEngines);
        if (oauthValidator != null) {
            oauthValidator.close();
        }
    }

    private static void closeQuietly(SslEngineFactory f) {
        if (f != null) {
            try {
                f.close();
            } catch (Exception e) {
                // nothing to release that matters
            }
        }
    }
}
