package io.kaas.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.TlsMaterial;
import io.kaas.cluster.Endpoint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.SaslChannelBuilder;
import org.apache.kafka.common.network.SslChannelBuilder;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.server.config.ReplicationConfigs;
import org.junit.jupiter.api.Test;

/**
 * {@code inter.broker.listener.name}, {@code security.inter.broker.protocol} and
 * {@code sasl.mechanism.inter.broker.protocol}: Apache's definitions, defaults, rules and messages.
 */
class InterBrokerListenerTest {
    private static final List<Endpoint> SASL_SSL_ONLY = List.of(new Endpoint("SASL_SSL", "127.0.0.1", 9093));
    private static final String SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"broker\" password=\"broker-secret\";";

    private static InterBrokerListener resolve(Map<String, String> keys, List<Endpoint> listeners, boolean peers) {
        return InterBrokerListener.resolve(new SecurityConfig(keys), listeners, List.of(), peers);
    }

    @Test
    void theKeysAreDefinedAsApachesReplicationConfigsDefinesThem() {
        for (String key : List.of(InterBrokerListener.LISTENER_NAME, InterBrokerListener.SECURITY_PROTOCOL)) {
            ConfigDef.ConfigKey ours =
                    InterBrokerListener.DEFINITIONS.configKeys().get(key);
            ConfigDef.ConfigKey apache =
                    ReplicationConfigs.CONFIG_DEF.configKeys().get(key);
            assertThat(ours.type).as(key).isEqualTo(apache.type);
            assertThat(ours.defaultValue).as(key).isEqualTo(apache.defaultValue);
            assertThat(ours.documentation).as(key).isEqualTo(apache.documentation);
            assertThat(String.valueOf(ours.validator)).as(key).isEqualTo(String.valueOf(apache.validator));
            assertThat(ours.importance).as(key).isEqualTo(apache.importance);
        }
    }

    @Test
    void byDefaultThePlaintextListener() {
        InterBrokerListener l = resolve(Map.of(), List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092)), true);
        assertThat(l).isEqualTo(new InterBrokerListener("PLAINTEXT", SecurityProtocol.PLAINTEXT, null));
    }

    @Test
    void aBrokerWithoutPeersNeedsNoPlaintextListenerButOneWithPeersDoes() {
        assertThat(resolve(Map.of(), SASL_SSL_ONLY, false).listenerName()).isEqualTo("PLAINTEXT");
        assertThatThrownBy(() -> resolve(Map.of(), SASL_SSL_ONLY, true))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
                                + "The valid options based on currently configured listeners are SASL_SSL");
    }

    @Test
    void notBothKeys() {
        assertThatThrownBy(() -> resolve(
                        Map.of("inter.broker.listener.name", "SASL_SSL", "security.inter.broker.protocol", "SASL_SSL"),
                        SASL_SSL_ONLY,
                        false))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.");
    }

    @Test
    void theNamedListenerMustBeMappedAndAdvertised() {
        assertThatThrownBy(() -> resolve(
                        Map.of(
                                "inter.broker.listener.name",
                                "internal",
                                "listener.security.protocol.map",
                                "SASL_SSL:SASL_SSL"),
                        SASL_SSL_ONLY,
                        false))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "Listener with name INTERNAL defined in inter.broker.listener.name not found in listener.security.protocol.map.");
        Map<String, String> keys = Map.of(
                "inter.broker.listener.name",
                "internal",
                "listener.security.protocol.map",
                "SASL_SSL:SASL_SSL,INTERNAL:SSL",
                "ssl.keystore.location",
                "/nowhere.p12");
        assertThatThrownBy(() -> resolve(keys, SASL_SSL_ONLY, false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "inter.broker.listener.name must be a listener name defined in advertised.listeners")
                .hasMessageContaining("the inter-broker listener is INTERNAL");
        List<Endpoint> both = List.of(SASL_SSL_ONLY.get(0), new Endpoint("INTERNAL", "10.0.0.1", 9094));
        // Listed, but advertised.listeners leaves it out: Apache's effective advertised listeners decide.
        assertThatThrownBy(() -> InterBrokerListener.resolve(new SecurityConfig(keys), both, SASL_SSL_ONLY, false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("are SASL_SSL");
        assertThat(resolve(keys, both, true))
                .isEqualTo(new InterBrokerListener("INTERNAL", SecurityProtocol.SSL, null));
    }

    @Test
    void anUnknownProtocolIsRefusedByApachesValidator() {
        assertThatThrownBy(() -> resolve(Map.of("security.inter.broker.protocol", "TLS"), SASL_SSL_ONLY, false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.inter.broker.protocol")
                .hasMessageContaining("String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    }

    @Test
    void saslNeedsItsMechanismEnabledOnTheListenerAndTheBrokersOwnLogin() {
        Map<String, String> keys =
                new HashMap<>(Map.of("security.inter.broker.protocol", "SASL_SSL", "ssl.keystore.location", "/k.p12"));
        // Apache's default mechanism, GSSAPI, is not among kaas's (nor the listener's default SCRAM pair).
        assertThatThrownBy(() -> resolve(keys, SASL_SSL_ONLY, false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms "
                                + "when SASL is used for inter-broker communication")
                .hasMessageContaining("GSSAPI");
        keys.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        assertThat(resolve(keys, SASL_SSL_ONLY, false))
                .isEqualTo(new InterBrokerListener("SASL_SSL", SecurityProtocol.SASL_SSL, "SCRAM-SHA-512"));
        assertThatThrownBy(() -> resolve(keys, SASL_SSL_ONLY, true))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config")
                .hasMessageContaining("KafkaServer");
        // Apache ignores an unprefixed sasl.jaas.config for a broker's own login (JaasContext.loadServerContext).
        keys.put("sasl.jaas.config", SCRAM_LOGIN);
        assertThatThrownBy(() -> resolve(keys, SASL_SSL_ONLY, true))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config");
        keys.remove("sasl.jaas.config");
        keys.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", SCRAM_LOGIN);
        assertThat(resolve(keys, SASL_SSL_ONLY, true).jaasKey())
                .isEqualTo("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config");
    }

    @Test
    void kafkaClientsBuildsTheChannelsWithTheBrokersStoresAndLogin() throws Exception {
        TlsMaterial tls = TlsMaterial.get();
        Map<String, String> keys = new HashMap<>(tls.brokerSsl());
        keys.put("ssl.truststore.location", tls.clientTruststore.toString());
        keys.put("inter.broker.listener.name", "SASL_SSL");
        keys.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        keys.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", SCRAM_LOGIN);
        SecurityConfig security = new SecurityConfig(keys);
        InterBrokerListener l = InterBrokerListener.resolve(security, SASL_SSL_ONLY, List.of(), true);
        try (ChannelBuilder b = l.newChannelBuilder(security, new LogContext())) {
            assertThat(b).isInstanceOf(SaslChannelBuilder.class);
        }
        keys.put("listener.security.protocol.map", "SASL_SSL:SSL");
        SecurityConfig ssl = new SecurityConfig(keys);
        InterBrokerListener overSsl = InterBrokerListener.resolve(ssl, SASL_SSL_ONLY, List.of(), true);
        assertThat(overSsl.saslMechanism()).isNull();
        try (ChannelBuilder b = overSsl.newChannelBuilder(ssl, new LogContext())) {
            assertThat(b).isInstanceOf(SslChannelBuilder.class);
        }
    }

    @Test
    void theKeysAreAppliedSecurityKeys() {
        assertThat(SecurityConfig.isSecurityKey("inter.broker.listener.name")).isTrue();
        assertThat(SecurityConfig.isSecurityKey("security.inter.broker.protocol"))
                .isTrue();
        assertThat(SecurityConfig.isSecurityKey("sasl.mechanism.inter.broker.protocol"))
                .isTrue();
        assertThat(SecurityConfig.isSecurityKey("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"))
                .isTrue();
        assertThat(SecurityConfig.isSecurityKey("listener.name.internal.plain.sasl.jaas.config"))
                .isTrue();
        assertThat(SecurityConfig.isSecurityKey("sasl.jaas.config"))
                .as("ignored for brokers, as Apache")
                .isFalse();
    }
}
