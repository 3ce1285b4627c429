package io.kaas.broker.security;

import io.kaas.cluster.Endpoint;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * The listener this broker's requests to the other brokers of its cluster go to (WriteTxnMarkers,
 * AddPartitionsToTxn), and how they authenticate, decided as Apache decides it:
 * {@value #LISTENER_NAME}, or else {@value #SECURITY_PROTOCOL} (default PLAINTEXT: the listener of that name),
 * never both; for SASL, {@value #SASL_MECHANISM} (default GSSAPI, which kaas does not offer) must be enabled on
 * that listener, and the broker logs in with its own JAAS entry for it:
 * {@code listener.name.<listener>.<mechanism>.sasl.jaas.config}, or a {@code KafkaServer} section of the
 * file {@code java.security.auth.login.config} names (kafka-clients' {@link JaasContext#loadServerContext}:
 * an unprefixed {@code sasl.jaas.config} is ignored for brokers, as in Apache).
 *
 * <p>The connection itself is kafka-clients' own client side ({@link #newChannelBuilder}): TLS with this broker's
 * {@code ssl.*} keystore and truststore (as overridden for that listener), SASL by its client authenticator.
 *
 * @param listenerName  upper case, as listener names are
 * @param protocol      the listener's security protocol
 * @param saslMechanism the mechanism when {@code protocol} is SASL_*, else null
 */
public record InterBrokerListener(String listenerName, SecurityProtocol protocol, String saslMechanism) {
    /** Apache's {@code ReplicationConfigs.INTER_BROKER_LISTENER_NAME_CONFIG}. */
    public static final String LISTENER_NAME = "inter.broker.listener.name";
    /** Apache's {@code ReplicationConfigs.INTER_BROKER_SECURITY_PROTOCOL_CONFIG}. */
    public static final String SECURITY_PROTOCOL = "security.inter.broker.protocol";

    public static final String SASL_MECHANISM = BrokerSecurityConfigs.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG;

    /**
     * The two keys as Apache 4.4's {@code ReplicationConfigs.CONFIG_DEF} defines them (type, default, allowed
     * values, doc). That class lives in kafka-server, whose dependencies (raft, the coordinators, log4j-core)
     * kaas does not ship; {@code InterBrokerListenerTest} compares these with Apache's own.
     */
    static final ConfigDef DEFINITIONS = new ConfigDef()
            .define(
                    SECURITY_PROTOCOL,
                    ConfigDef.Type.STRING,
                    SecurityProtocol.PLAINTEXT.name,
                    ConfigDef.ValidString.in(SecurityProtocol.names().toArray(String[]::new)),
                    ConfigDef.Importance.MEDIUM,
                    "Security protocol used to communicate between brokers. It is an error to set this and "
                            + "inter.broker.listener.name properties at the same time.")
            .define(
                    LISTENER_NAME,
                    ConfigDef.Type.STRING,
                    null,
                    ConfigDef.Importance.MEDIUM,
                    "Name of listener used for communication between brokers. If this is unset, the listener name is defined "
                            + "by security.inter.broker.protocol. It is an error to set this and security.inter.broker.protocol "
                            + "properties at the same time.");

    /** Is {@code key} one of the three inter-broker keys? */
    static boolean isKey(String key) {
        return key.equals(LISTENER_NAME) || key.equals(SECURITY_PROTOCOL) || key.equals(SASL_MECHANISM);
    }

    /**
     * The inter-broker listener {@code security} names, checked with Apache's rules and messages: not both
     * {@value #LISTENER_NAME} and {@value #SECURITY_PROTOCOL}; the listener mapped in
     * {@code listener.security.protocol.map} and advertised (in {@code advertisedListeners}, or the listeners when
     * none are); for SASL, the mechanism enabled on it.
     *
     * <p>One departure: a broker without peers sends no inter-broker request, so when none of the three keys is set
     * it does not need the default PLAINTEXT listener (Apache would refuse a broker whose listeners are all
     * SASL_SSL without {@value #LISTENER_NAME}); set keys are always checked.
     *
     * @param peers whether this broker has peers (joins a cluster with {@code --coordinator}); then the broker's JAAS
     *              entry for the mechanism is looked up now, so a missing one fails the start naming the key
     * @throws ConfigException naming the key and the rule
     */
    public static InterBrokerListener resolve(
            SecurityConfig security, List<Endpoint> listeners, List<Endpoint> advertised, boolean peers) {
        Map<String, String> s = security.settings();
        Map<String, String> keys = new HashMap<>();
        for (String k : List.of(LISTENER_NAME, SECURITY_PROTOCOL)) {
            if (s.containsKey(k)) {
                keys.put(k, s.get(k).trim());
            }
        }
        Map<String, Object> parsed = DEFINITIONS.parse(keys);
        String name = (String) parsed.get(LISTENER_NAME);
        boolean explicit =
                keys.containsKey(LISTENER_NAME) || keys.containsKey(SECURITY_PROTOCOL) || s.containsKey(SASL_MECHANISM);
        String listenerName;
        SecurityProtocol protocol;
        if (name != null && !name.isBlank()) {
            if (keys.containsKey(SECURITY_PROTOCOL)) {
                throw new ConfigException(
                        "Only one of " + LISTENER_NAME + " and " + SECURITY_PROTOCOL + " should be set.");
            }
            listenerName = ListenerName.normalised(name).value();
            protocol = security.protocolMap().get(listenerName);
            if (protocol == null) {
                throw new ConfigException("Listener with name " + listenerName + " defined in " + LISTENER_NAME
                        + " not found in " + SecurityConfig.PROTOCOL_MAP + ".");
            }
        } else {
            protocol = SecurityProtocol.forName((String) parsed.get(SECURITY_PROTOCOL));
            listenerName = ListenerName.forSecurityProtocol(protocol).value();
        }
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        String mechanism = null;
        if (sasl) {
            mechanism = (String) BrokerSecurityConfigs.CONFIG_DEF
                    .parse(
                            s.containsKey(SASL_MECHANISM)
                                    ? Map.of(
                                            SASL_MECHANISM,
                                            s.get(SASL_MECHANISM).trim())
                                    : Map.of())
                    .get(SASL_MECHANISM);
        }
        InterBrokerListener out = new InterBrokerListener(listenerName, protocol, mechanism);
        if (explicit || peers) {
            out.check(security, listeners, advertised);
        }
        if (peers && sasl) {
            out.checkJaas(security);
        }
        return out;
    }

    private void check(SecurityConfig security, List<Endpoint> listeners, List<Endpoint> advertised) {
        Set<String> names = new LinkedHashSet<>();
        (advertised.isEmpty() ? listeners : advertised).forEach(e -> names.add(e.listenerName()));
        if (!names.contains(listenerName)) {
            throw new ConfigException(LISTENER_NAME + " must be a listener name defined in advertised.listeners. "
                    + "The valid options based on currently configured listeners are " + String.join(",", names)
                    + " (the inter-broker listener is " + listenerName + ")");
        }
        if (saslMechanism != null && !security.saslMechanisms(listenerName).contains(saslMechanism)) {
            throw new ConfigException(
                    SASL_MECHANISM + " must be included in " + BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG
                            + " when SASL is used for inter-broker communication (" + SASL_MECHANISM + "="
                            + saslMechanism + ", listener "
                            + listenerName + " enables " + security.saslMechanisms(listenerName) + ")");
        }
    }

    /** This broker's own credentials for the mechanism, found where kafka-clients will look at the first connection. */
    private void checkJaas(SecurityConfig security) {
        try {
            JaasContext.loadServerContext(
                    new ListenerName(listenerName),
                    saslMechanism,
                    channelConfig(security).valuesWithPrefixOverride(new ListenerName(listenerName).configPrefix()));
        } catch (IllegalArgumentException | SecurityException e) {
            throw new ConfigException(
                    jaasKey(),
                    null,
                    "the broker's own " + saslMechanism + " login for inter-broker requests over " + listenerName
                            + " is missing or invalid: " + e.getMessage());
        }
    }

    /**
     * The JAAS key the settings name for the broker's own login, without checking them: the inter-broker listener
     * ({@value #LISTENER_NAME}, else {@value #SECURITY_PROTOCOL}, else PLAINTEXT) and {@value #SASL_MECHANISM} (else GSSAPI).
     */
    static String loginKey(SecurityConfig security) {
        Map<String, String> s = security.settings();
        String name = s.getOrDefault(LISTENER_NAME, s.getOrDefault(SECURITY_PROTOCOL, SecurityProtocol.PLAINTEXT.name))
                .trim();
        String mechanism =
                s.getOrDefault(SASL_MECHANISM, SaslConfigs.GSSAPI_MECHANISM).trim();
        return new InterBrokerListener(name.toUpperCase(Locale.ROOT), SecurityProtocol.PLAINTEXT, mechanism).jaasKey();
    }

    /** Where Apache (and kaas) read the broker's own login for this listener and mechanism. */
    public String jaasKey() {
        return new ListenerName(listenerName).configPrefix() + saslMechanism.toLowerCase(Locale.ROOT) + "."
                + SaslConfigs.SASL_JAAS_CONFIG;
    }

    /**
     * A new client-side channel builder for connections to the other brokers' {@link #listenerName} listener:
     * kafka-clients' {@link ChannelBuilders#clientChannelBuilder} with the server JAAS context, as Apache's brokers
     * build theirs, over this broker's security keys typed by {@code BrokerSecurityConfigs.CONFIG_DEF}. Each
     * builder belongs to one kafka-clients {@code Selector}, which closes it.
     */
    public ChannelBuilder newChannelBuilder(SecurityConfig security, LogContext logContext) {
        return ChannelBuilders.clientChannelBuilder(
                protocol,
                JaasContext.Type.SERVER,
                channelConfig(security),
                new ListenerName(listenerName),
                saslMechanism,
                Time.SYSTEM,
                logContext);
    }

    private static AbstractConfig channelConfig(SecurityConfig security) {
        return new AbstractConfig(BrokerSecurityConfigs.CONFIG_DEF, security.settings(), false);
    }

    public boolean tls() {
        return protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
    }

    @Override
    public String toString() {
        return listenerName + " (" + protocol.name + (saslMechanism == null ? "" : ", " + saslMechanism) + ")";
    }
}
