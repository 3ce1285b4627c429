package io.kaas.broker.security;

import io.kaas.broker.quota.ClientQuotas;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.ConnectionLimits;
import io.kaas.protocol.ListenerSecurity;
import io.kaas.security.AclStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.config.QuotaConfig;

/**
 * The security half of the broker's configuration, as Apache's {@code server.properties} spells it:
 * {@code listener.security.protocol.map}, {@code ssl.*}, {@code sasl.enabled.mechanisms},
 * {@code listener.name.<listener>.<key>} overrides, {@code super.users}, plus kaas's own
 * {@value #LEGACY_SCRAM_NONCE}. Values are validated with Apache's own definitions
 * ({@link BrokerSecurityConfigs#CONFIG_DEF}), so a bad value is reported as Apache would. Which keys are
 * its own is {@link SecurityKeys}'s to say; the settings that are also {@code kaas serve} flags
 * ({@code super.users}, {@code authorizer.class.name}, the inter-broker and quota-window keys) reach it
 * through the settings table ({@code config/BrokerSettings}).
 *
 * @param settings the raw keys (never logged: they hold passwords)
 */
public record SecurityConfig(Map<String, String> settings) {
    public static final String PROTOCOL_MAP = "listener.security.protocol.map";
    public static final String SUPER_USERS = "super.users";
    /** Apache's key; only its StandardAuthorizer is accepted (kaas runs that very class, {@link AccessControl}). */
    public static final String AUTHORIZER = "authorizer.class.name";

    public static final String ALLOW_EVERYONE_IF_NO_ACL = "allow.everyone.if.no.acl.found";
    /**
     * librdkafka before 2.6.1 repeats the client nonce in its SCRAM client-final message; Apache 4.x
     * rejects that since its CVE-2024-56128 fix. kaas accepts exactly that form (the whole server
     * nonce must still be there) unless this is false.
     */
    public static final String LEGACY_SCRAM_NONCE = "kaas.sasl.scram.accept.legacy.librdkafka.nonce";
    /** How often TLS listeners check their keystore/truststore files for a change (0 = never; kaas's own key). */
    public static final String SSL_RELOAD_INTERVAL = "kaas.ssl.store.reload.check.interval.ms";
    /** What kaas can authenticate; Apache's default (GSSAPI) is not among them. */
    public static final List<String> SUPPORTED_MECHANISMS =
            List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    public static final String OAUTHBEARER_VALIDATOR =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    public static final List<String> DEFAULT_MECHANISMS = List.of("SCRAM-SHA-256", "SCRAM-SHA-512");

    public SecurityConfig {
        settings = Map.copyOf(settings);
    }

    /** These settings with {@code overrides} put over them (a {@code kaas serve} flag wins over the config file's key). */
    public SecurityConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new HashMap<>(settings);
        merged.putAll(overrides);
        return new SecurityConfig(merged);
    }

    /**
     * The {@code listener.name.<listener>.<mechanism>.sasl.jaas.config} keys set here that are not the broker's own
     * inter-broker login ({@link InterBrokerListener#loginKey}): kaas reads no other JAAS entry (a listener's users are
     * the SCRAM store's), so these are reported as not applied.
     */
    public Set<String> unusedLoginKeys() {
        String used = InterBrokerListener.loginKey(this);
        Set<String> out = new TreeSet<>();
        settings.keySet().stream()
                .filter(k -> SecurityKeys.isListenerLogin(k) && !k.equals(used))
                .forEach(out::add);
        return out;
    }

    /** Does kaas apply {@code key} (globally, or as {@code listener.name.<listener>.<key>})? */
    public static boolean isSecurityKey(String key) {
        return SecurityKeys.isSecurityKey(key);
    }

    /** These settings without {@code key}. */
    public SecurityConfig without(String key) {
        Map<String, String> left = new HashMap<>(settings);
        left.remove(key);
        return new SecurityConfig(left);
    }

    /** Apache's {@code delegation.token.*} keys as set (its {@code DelegationTokenManagerConfigs} reads them). */
    public Map<String, String> delegationTokenSettings() {
        Map<String, String> out = new HashMap<>();
        settings.forEach((k, v) -> {
            if (org.apache.kafka.server.config.DelegationTokenManagerConfigs.CONFIG_DEF
                    .names()
                    .contains(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Nothing configured: PLAINTEXT listeners only (the default map still names SSL and SASL). */
    public static SecurityConfig none() {
        return new SecurityConfig(Map.of());
    }

    /** Apache's {@code listener.security.protocol.map}; unset means each protocol's own name. */
    public Map<String, SecurityProtocol> protocolMap() {
        String text = settings.get(PROTOCOL_MAP);
        Map<String, SecurityProtocol> map = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            for (SecurityProtocol p : List.of(
                    SecurityProtocol.PLAINTEXT,
                    SecurityProtocol.SSL,
                    SecurityProtocol.SASL_PLAINTEXT,
                    SecurityProtocol.SASL_SSL)) {
                map.put(p.name, p);
            }
            return map;
        }
        for (String entry : text.split(",")) {
            String e = entry.trim();
            int colon = e.indexOf(':');
            if (colon <= 0) {
                throw new ConfigException(PROTOCOL_MAP, text, "entries must be LISTENER_NAME:SECURITY_PROTOCOL");
            }
            String protocol = e.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            if (!SecurityProtocol.names().contains(protocol)) {
                throw new ConfigException(
                        PROTOCOL_MAP, text, "'" + protocol + "' is not one of " + SecurityProtocol.names());
            }
            map.put(e.substring(0, colon).trim().toUpperCase(Locale.ROOT), SecurityProtocol.forName(protocol));
        }
        return map;
    }

    public SecurityProtocol protocolOf(String listenerName) {
        SecurityProtocol p = protocolMap().get(listenerName);
        if (p == null) {
            throw new ConfigException(
                    PROTOCOL_MAP,
                    settings.getOrDefault(PROTOCOL_MAP, "(default)"),
                    "listener " + listenerName + " has no security protocol; add " + listenerName + ":<PROTOCOL>");
        }
        return p;
    }

    /**
     * Apache's broker security keys for one listener, typed and validated: the global {@code ssl.*} /
     * {@code sasl.*} values overlaid by {@code listener.name.<name lower-case>.<key>}, as Apache
     * resolves them.
     */
    public Map<String, Object> parsedFor(String listenerName) {
        String prefix = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".";
        Map<String, Object> raw = new HashMap<>();
        settings.forEach((k, v) -> {
            if (SecurityKeys.APPLIED.contains(k)) {
                raw.put(k, v);
            }
        });
        settings.forEach((k, v) -> {
            if (k.startsWith(prefix) && SecurityKeys.APPLIED.contains(k.substring(prefix.length()))) {
                raw.put(k.substring(prefix.length()), v);
            }
        });
        // OAUTHBEARER keys: global, then listener.name.<name>.oauthbearer.<key> (Apache's per-mechanism spelling).
        settings.forEach((k, v) -> {
            if (SecurityKeys.OAUTHBEARER_KEYS.contains(k) && k.startsWith("sasl.oauthbearer.")) {
                raw.put(k, v);
            }
        });
        settings.forEach((k, v) -> {
            String mechanismPrefix = prefix + SecurityKeys.OAUTHBEARER_PREFIX;
            if (k.startsWith(mechanismPrefix)
                    && SecurityKeys.OAUTHBEARER_KEYS.contains(k.substring(mechanismPrefix.length()))) {
                raw.put(k.substring(mechanismPrefix.length()), v);
            }
        });
        Object handler = raw.remove(BrokerSecurityConfigs.SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG);
        if (handler != null && !handler.toString().trim().equals(OAUTHBEARER_VALIDATOR)) {
            throw new ConfigException(
                    BrokerSecurityConfigs.SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG,
                    handler,
                    "kaas validates OAUTHBEARER tokens with " + OAUTHBEARER_VALIDATOR + " only");
        }
        raw.remove(SaslConfigs.SASL_JAAS_CONFIG);
        if (!raw.containsKey(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG)) {
            raw.put(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG, String.join(",", DEFAULT_MECHANISMS));
        }
        return BrokerSecurityConfigs.CONFIG_DEF.parse(raw);
    }

    /** {@code sasl.enabled.mechanisms} of a listener, each one kaas supports. */
    public List<String> saslMechanisms(String listenerName) {
        @SuppressWarnings("unchecked")
        List<String> mechanisms =
                (List<String>) parsedFor(listenerName).get(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG);
        for (String m : mechanisms) {
            if (!SUPPORTED_MECHANISMS.contains(m)) {
                throw new ConfigException(
                        BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG,
                        String.join(",", mechanisms),
                        "kaas supports " + SUPPORTED_MECHANISMS + ", not " + m);
            }
        }
        if (mechanisms.isEmpty()) {
            throw new ConfigException(
                    BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG,
                    "",
                    "a SASL listener needs at least one mechanism");
        }
        return mechanisms;
    }

    /** {@code super.users}: {@code User:alice;User:bob}, principals as {@code User:name}. */
    public Set<String> superUsers() {
        String text = settings.getOrDefault(SUPER_USERS, "");
        Set<String> out = new LinkedHashSet<>();
        Arrays.stream(text.split(";"))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .forEach(s -> {
                    if (!s.startsWith("User:")) {
                        throw new ConfigException(
                                SUPER_USERS, text, "each entry must be User:<name>, separated by ';'");
                    }
                    out.add(s);
                });
        return out;
    }

    /**
     * Is ACL authorization on? Only when {@value #AUTHORIZER} names Apache's StandardAuthorizer;
     * another class is refused, since starting without the authorization the operator asked for
     * would silently open everything.
     */
    public boolean authorizerEnabled() {
        String v = settings.getOrDefault(AUTHORIZER, "").trim();
        if (v.isEmpty()) {
            return false;
        }
        if (!v.equals(AccessControl.STANDARD_AUTHORIZER)) {
            throw new ConfigException(
                    AUTHORIZER,
                    v,
                    "kaas runs Apache's " + AccessControl.STANDARD_AUTHORIZER
                            + " only; set that, or leave the key empty for no authorization");
        }
        return true;
    }

    /** {@value #ALLOW_EVERYONE_IF_NO_ACL}: Apache's default false (a resource without ACLs is closed to all but super.users). */
    public boolean allowEveryoneIfNoAcl() {
        String v = settings.getOrDefault(ALLOW_EVERYONE_IF_NO_ACL, "false").trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw new ConfigException(ALLOW_EVERYONE_IF_NO_ACL, v, "must be true or false");
        }
        return Boolean.parseBoolean(v);
    }

    /** Authorization as configured: Apache's StandardAuthorizer over {@code store}, or none. */
    public AccessControl accessControl(AclStore store) {
        return authorizerEnabled()
                ? AccessControl.standard(store, superUsers(), allowEveryoneIfNoAcl())
                : AccessControl.none();
    }

    public boolean acceptLegacyScramNonce() {
        String v = settings.getOrDefault(LEGACY_SCRAM_NONCE, "true").trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw new ConfigException(LEGACY_SCRAM_NONCE, v, "must be true or false");
        }
        return Boolean.parseBoolean(v);
    }

    /** What listener {@code listenerName} does to a new connection (its TLS context built now: a bad keystore fails the start). */
    public ListenerSecurity listenerSecurity(String listenerName) {
        SecurityProtocol protocol = protocolOf(listenerName);
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        return ListenerSecurity.of(
                listenerName,
                protocol,
                parsedFor(listenerName),
                sasl ? List.copyOf(saslMechanisms(listenerName)) : List.of(),
                OAuthBearerTokenValidator::of);
    }

    /** Apache's connection quotas ({@code max.connections}, {@code max.connections.per.ip}[{@code .overrides}]): DoS limits kept with the security keys. */
    public ConnectionLimits connectionLimits() {
        return ConnectionLimits.of(
                settings.get(ConnectionLimits.MAX_CONNECTIONS),
                settings.get(ConnectionLimits.MAX_PER_IP),
                settings.get(ConnectionLimits.PER_IP_OVERRIDES));
    }

    /**
     * Apache's client-quota window ({@code quota.window.num} samples of {@code quota.window.size.seconds}),
     * typed and checked by Apache's own {@link QuotaConfig#CONFIG_DEF}; kept with the connection quotas.
     */
    public ClientQuotas.Window quotaWindow() {
        Map<String, String> keys = new HashMap<>();
        for (String k : List.of(QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG, QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG)) {
            if (settings.containsKey(k)) {
                keys.put(k, settings.get(k).trim());
            }
        }
        Map<String, Object> parsed = QuotaConfig.CONFIG_DEF.parse(keys);
        return new ClientQuotas.Window((Integer) parsed.get(QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG), (Integer)
                parsed.get(QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG));
    }

    /** {@value #SSL_RELOAD_INTERVAL}; default 30 s. */
    public java.time.Duration sslReloadInterval() {
        String v = settings.getOrDefault(SSL_RELOAD_INTERVAL, "30000").trim();
        try {
            long ms = Long.parseLong(v);
            if (ms < 0) {
                throw new NumberFormatException();
            }
            return java.time.Duration.ofMillis(ms);
        } catch (NumberFormatException e) {
            throw new ConfigException(SSL_RELOAD_INTERVAL, v, "must be milliseconds >= 0 (0 = never)");
        }
    }

    /**
     * Checks what the broker will need at start, so {@code kaas serve} can report a bad value with
     * its key (exit 2) before binding anything: every listener mapped, TLS listeners with a keystore,
     * SASL listeners with supported mechanisms.
     */
    public void validate(List<Endpoint> listeners) {
        protocolMap();
        superUsers();
        authorizerEnabled();
        allowEveryoneIfNoAcl();
        acceptLegacyScramNonce();
        sslReloadInterval();
        connectionLimits();
        quotaWindow();
        for (Endpoint e : listeners) {
            SecurityProtocol p = protocolOf(e.listenerName());
            Map<String, Object> parsed = parsedFor(e.listenerName());
            if (p == SecurityProtocol.SSL || p == SecurityProtocol.SASL_SSL) {
                boolean hasKeystore =
                        parsed.get("ssl.keystore.location") != null || parsed.get("ssl.keystore.key") != null;
                if (!hasKeystore) {
                    throw new ConfigException(
                            "ssl.keystore.location",
                            null,
                            "listener " + e.listenerName() + " is " + p.name
                                    + " and needs a keystore (ssl.keystore.location, or ssl.keystore.key + ssl.keystore.certificate.chain)");
                }
            }
            if ((p == SecurityProtocol.SASL_PLAINTEXT || p == SecurityProtocol.SASL_SSL)
                    && saslMechanisms(e.listenerName()).contains("OAUTHBEARER")
                    && parsed.get(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL) == null) {
                throw new ConfigException(
                        SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL,
                        null,
                        "listener " + e.listenerName()
                                + " offers OAUTHBEARER and needs the identity provider's JWKS endpoint to verify token signatures");
            }
        }
    }

    /** Keys as the operator wrote them, with every value hidden: for messages. */
    public Map<String, String> redacted() {
        Map<String, String> out = new TreeMap<>();
        settings.keySet().forEach(k -> out.put(k, "[hidden]"));
        return out;
    }

    @Override
    public String toString() {
        return "SecurityConfig" + redacted().keySet();
    }
}
