package io.kaas.broker.config;

import io.kaas.broker.txn.TransactionConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PlacementRule;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The value of every {@link BrokerSettings} row, each from the first source that sets it: a flag, then its
 * {@code KAAS_*} variable, then the config file, then the row's default (the order {@code kaas serve}
 * documents, and the only place it is decided). Each value is typed and checked by its row once, whatever
 * its source; a bad one is a {@link ConfigException} that names the source, the key and the rule. Then the
 * values become the broker's configuration records. Immutable.
 */
public final class SettingValues {
    /** Where a value came from, strongest first. */
    public enum Source {
        FLAG,
        ENV,
        FILE,
        DEFAULT
    }

    /** Apache's "only one of" pair: a stronger source's member hides the weaker source's other one. */
    private static final List<String> INTER_BROKER_PAIR =
            List.of("inter.broker.listener.name", "security.inter.broker.protocol");

    private static final List<String> SECURITY_KEYS = List.of(
            "authorizer.class.name",
            "super.users",
            "allow.everyone.if.no.acl.found",
            "quota.window.num",
            "quota.window.size.seconds",
            "inter.broker.listener.name",
            "security.inter.broker.protocol",
            "sasl.mechanism.inter.broker.protocol",
            "delegation.token.secret.key",
            "delegation.token.max.lifetime.ms",
            "delegation.token.expiry.time.ms",
            "delegation.token.expiry.check.interval.ms");

    private final Map<String, Object> values;
    private final Map<String, Source> sources;

    private SettingValues(Map<String, Object> values, Map<String, Source> sources) {
        this.values = values;
        this.sources = sources;
    }

    /** Every row at its default. */
    public static SettingValues defaults() {
        return resolve(Map.of(), Map.of(), Map.of(), "");
    }

    /**
     * Each row's value from the strongest source that sets it. Every map is keyed by the row's key and holds text
     * in the key's syntax (a flag's duration already in milliseconds, see {@link Setting.FlagSyntax}).
     *
     * @param flags    what the command line gave
     * @param env      what the {@code KAAS_*} variables gave
     * @param file     what the config file gave
     * @param fileName the config file, for messages
     * @throws ConfigException naming the source, the key and the rule of the first bad value
     */
    public static SettingValues resolve(
            Map<String, String> flags, Map<String, String> env, Map<String, String> file, String fileName) {
        Map<String, Object> values = new HashMap<>();
        Map<String, Source> sources = new HashMap<>();
        for (Setting s : BrokerSettings.all()) {
            String key = s.key();
            Source source = flags.containsKey(key)
                    ? Source.FLAG
                    : env.containsKey(key) ? Source.ENV : file.containsKey(key) ? Source.FILE : Source.DEFAULT;
            String text = switch (source) {
                case FLAG -> flags.get(key);
                case ENV -> env.get(key);
                case FILE -> file.get(key);
                case DEFAULT -> null;
            };
            try {
                values.put(key, text == null ? s.defaultValue() : s.parse(text));
            } catch (ConfigException e) {
                String where = switch (source) {
                    case FLAG -> s.flag();
                    case ENV -> s.env();
                    default -> fileName;
                };
                throw new ConfigException(where + ": " + e.getMessage());
            }
            sources.put(key, source);
        }
        return new SettingValues(values, sources);
    }

    /** The typed value of {@code key} (null when unset); {@code key} must be a row of {@link BrokerSettings}. */
    public Object get(String key) {
        if (BrokerSettings.byKey(key) == null) {
            throw new IllegalArgumentException("no setting " + key);
        }
        return values.get(key);
    }

    /** Which source gave {@code key} its value. */
    public Source source(String key) {
        return sources.get(key);
    }

    private int integer(String key) {
        return (Integer) get(key);
    }

    private long longValue(String key) {
        return (Long) get(key);
    }

    /** The broker's configuration: every row that is one of its fields. */
    public BrokerConfig brokerConfig() {
        Object advertised = get("advertised.listeners");
        Object clusterId = get("kaas.cluster.id");
        Object networkThreads = get("num.network.threads");
        return new BrokerConfig(
                Endpoint.parseListOrJson(get("listeners").toString()),
                advertised == null || advertised.toString().isBlank()
                        ? List.of()
                        : Endpoint.parseListOrJson(advertised.toString()),
                integer("node.id"),
                clusterId == null || clusterId.toString().isBlank()
                        ? BrokerConfig.DEFAULT_CLUSTER_ID
                        : clusterId.toString(),
                Path.of(get("log.dir").toString()),
                (Boolean) get("kaas.in.memory"),
                longValue("log.flush.interval.messages"),
                integer("log.segment.bytes"),
                Duration.ofMillis(longValue("log.retention.check.interval.ms")),
                (Boolean) get("auto.create.topics.enable"),
                integer("num.partitions"),
                integer("socket.request.max.bytes"),
                integer("num.io.threads"),
                networkThreads == null ? BrokerConfig.defaultNetworkThreads() : (Integer) networkThreads,
                integer("max.incremental.fetch.session.cache.slots"),
                null,
                integer("kaas.max.open.files"),
                adminListener(get("kaas.admin.listener").toString()),
                (Boolean) get("kaas.metrics.per.partition"),
                new CleanerSettings(
                        integer("log.cleaner.threads"),
                        longValue("log.cleaner.dedupe.buffer.size"),
                        integer("log.cleaner.io.buffer.size"),
                        Duration.ofMillis(longValue("log.cleaner.backoff.ms"))),
                new SocketBuffers(integer("socket.send.buffer.bytes"), integer("socket.receive.buffer.bytes")),
                logDirs(),
                PlacementRule.parse(get("kaas.log.dirs.placement").toString()));
    }

    /**
     * The pool log.dirs names when it is set at least as strongly as log.dir (Apache: log.dirs wins over log.dir),
     * else null: log.dir alone, so {@code --data-dir X} still wins over a file's log.dirs.
     */
    private LogDirs logDirs() {
        Object dirs = get("log.dirs");
        if (dirs == null || dirs.toString().isBlank() || source("log.dirs").compareTo(source("log.dir")) > 0) {
            return null;
        }
        return LogDirs.parse(dirs.toString());
    }

    /** The transaction coordinator's settings. */
    public TransactionConfig transactions() {
        return TransactionConfig.DEFAULTS
                .withVersion((Short) get("kaas.transaction.version"))
                .withMaxTimeout(Duration.ofMillis(integer("transaction.max.timeout.ms")))
                .withIdExpiration(Duration.ofMillis(integer("transactional.id.expiration.ms")));
    }

    /**
     * The security rows that are set, as {@code SecurityConfig} takes them (its own rules check their values),
     * less the member of Apache's exclusive inter-broker pair that a stronger source's other member replaces.
     */
    public Map<String, String> securitySettings() {
        Map<String, String> out = new HashMap<>();
        for (String key : SECURITY_KEYS) {
            Object v = get(key);
            if (v instanceof org.apache.kafka.common.config.types.Password secret) {
                out.put(key, secret.value());
            } else if (v != null) {
                out.put(key, v.toString().trim());
            }
        }
        String first = INTER_BROKER_PAIR.get(0);
        String second = INTER_BROKER_PAIR.get(1);
        if (out.containsKey(first) && out.containsKey(second)) {
            int order = source(first).compareTo(source(second));
            if (order < 0) {
                out.remove(second);
            } else if (order > 0) {
                out.remove(first);
            }
        }
        return out;
    }

    /** The coordinator URI, or null for a broker that owns its directory alone. */
    public String coordinator() {
        Object v = get("kaas.coordinator");
        return v == null || v.toString().isBlank() ? null : v.toString().trim();
    }

    public Duration coordinatorLeaseTtl() {
        return Duration.ofMillis(longValue("kaas.coordinator.lease.ttl.ms"));
    }

    public String logFormat() {
        return get("kaas.log.format").toString();
    }

    public String logLevel() {
        return get("kaas.log.level").toString();
    }

    /** {@code host:port}, {@code [v6]:port}, or {@code none} (null: no admin listener). */
    static InetSocketAddress adminListener(String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("none")) {
            return null;
        }
        Endpoint e;
        try {
            // The Kafka listener syntax's host:port rules, [v6] included.
            e = v.contains("://") ? null : Endpoint.parse("PLAINTEXT://" + v);
        } catch (IllegalArgumentException bad) {
            e = null;
        }
        if (e == null || e.host().isEmpty()) {
            throw new IllegalArgumentException("'" + value + "' is not HOST:PORT or 'none'");
        }
        return InetSocketAddress.createUnresolved(e.host(), e.port());
    }
}
