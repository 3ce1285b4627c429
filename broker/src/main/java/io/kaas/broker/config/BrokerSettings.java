package io.kaas.broker.config;

import io.kaas.broker.config.Setting.FlagSyntax;
import io.kaas.broker.fetch.FetchSessionCache;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PlacementRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.config.DelegationTokenManagerConfigs;
import org.apache.kafka.server.config.QuotaConfig;

/**
 * The settings table of {@code kaas serve}: every broker setting declared once, as a {@link Setting} row
 * (its {@code server.properties} key, flag, {@code KAAS_*} variable, type, default, rule and doc). Flags,
 * variables and the config file are all resolved from it by {@link SettingValues#resolve}, with one
 * precedence: flag, then variable, then file, then the row's default. The {@code --help} text, the man
 * page and {@code docs/settings.md} are rendered from it (cli's {@code ServeSettingsTest} keeps them
 * current). Immutable; rows in the order docs/settings.md lists them.
 *
 * <p>Keys are Apache's where Apache has the setting ({@code log.segment.bytes}, {@code num.io.threads});
 * settings Apache does not have get a {@code kaas.*} key, as kaas's own security keys already do.
 */
public final class BrokerSettings {
    private static final List<Setting> ROWS = new ArrayList<>();

    private static final ConfigDef.Validator LISTENERS =
            check(BrokerSettings::listenersProblem, "NAME://host:port[,NAME://host:port...], or the JSON form");
    private static final ConfigDef.Validator BUFFER_SIZE =
            check(v -> SocketBuffers.problem((Integer) v), "positive, or -1 for the operating system's default");

    static {
        row("listeners", "--listeners", Type.STRING, "PLAINTEXT://localhost:9092")
                .rule(LISTENERS)
                .doc(
                        "Where to listen, Kafka syntax: PLAINTEXT://host:port[,...]; the variable also takes the JSON form");
        row("advertised.listeners", "--advertised-listeners", Type.STRING, null)
                .shown("the listeners")
                .rule(check(v -> v.toString().isBlank() ? null : listenersProblem(v), "LISTENERS, or empty"))
                .doc("What clients are told to connect to");
        row("node.id", "--broker-id", Type.INT, 0)
                .rule(Range.atLeast(0))
                .doc("Node id reported to clients; broker.id is the same key's older name");
        row("kaas.cluster.id", "--cluster-id", Type.STRING, BrokerConfig.DEFAULT_CLUSTER_ID)
                .shown("a fixed kaas id")
                .doc("Cluster id reported to clients");
        row("log.dir", "--data-dir", Type.STRING, "./kaas-data")
                .doc("Data directory, one; log.dirs wins over it when set");
        row("log.dirs", "--log-dirs", Type.STRING, null)
                .shown("log.dir alone")
                .rule(check(v -> problemOf(() -> LogDirs.parse(v.toString())), "DIR[,DIR...] or the JSON form"))
                .doc("Log dirs, Apache's meaning (KIP-112): DIR[,DIR...], or JSON [{\"name\",\"path\",\"eligible\","
                        + "\"cordoned\",\"labels\"},...]; the first holds __cluster/; a topic's kaas.log.dirs pins it "
                        + "to named dirs; see docs/volumes.md");
        row("kaas.log.dirs.placement", "--log-dirs-placement", Type.STRING, "partitions")
                .rule(check(v -> problemOf(() -> PlacementRule.parse(v.toString())), "partitions or bytes"))
                .doc("Where a new partition goes among the log dirs: the one holding the fewest partitions, or bytes");
        row("kaas.in.memory", "--in-memory", Type.BOOLEAN, false)
                .doc("Dev mode: keep everything in memory; nothing survives a stop");
        row("log.flush.interval.messages", "--flush-interval-messages", Type.LONG, 1L)
                .rule(Range.atLeast(1))
                .doc(
                        "Fsync once N messages are pending; 1 makes every acks=all write durable before it is acknowledged");
        row("log.segment.bytes", "--segment-bytes", Type.INT, 1 << 30)
                .shown("1 GiB")
                .rule(Range.atLeast(1024))
                .doc("Default segment size; a topic's segment.bytes overrides it");
        row("log.retention.check.interval.ms", "--retention-check-interval", Type.LONG, 300_000L)
                .shown("300s")
                .rule(Range.atLeast(0))
                .syntax(FlagSyntax.DURATION_MS)
                .doc("How often retention runs: the flag takes seconds, or a unit (500ms, 30s, 5m, 1h); 0 disables");
        row("auto.create.topics.enable", "--auto-create-topics", Type.BOOLEAN, true)
                .doc("Create unknown topics on first produce or metadata request");
        row("num.partitions", "--num-partitions", Type.INT, 1)
                .rule(Range.atLeast(1))
                .doc("Partitions of an auto-created topic");
        row("socket.request.max.bytes", "--socket-request-max-bytes", Type.INT, 100 * 1024 * 1024)
                .shown("100 MiB")
                .rule(Range.atLeast(64))
                .doc("Largest request accepted; a bigger one closes its connection");
        row("socket.send.buffer.bytes", "--socket-send-buffer-bytes", Type.INT, -1)
                .shown("-1, where Apache's is 102400")
                .rule(BUFFER_SIZE)
                .doc("SO_SNDBUF of client connections; -1 leaves it to the operating system, which autotunes it");
        row("socket.receive.buffer.bytes", "--socket-receive-buffer-bytes", Type.INT, -1)
                .shown("-1, where Apache's is 102400")
                .rule(BUFFER_SIZE)
                .doc("SO_RCVBUF of client connections; -1 leaves it to the operating system");
        row("num.io.threads", "--num-io-threads", Type.INT, 8)
                .shown("8, Apache's")
                .rule(Range.atLeast(1))
                .doc("Request-handler threads: they run every request's work, which can wait on the disk, so there are "
                        + "more of them than cores");
        row("num.network.threads", "--num-network-threads", Type.INT, null)
                .shown("one per core, at most 4; 0 on the command line")
                .rule(nullOr(Range.atLeast(1)))
                .syntax(FlagSyntax.ZERO_IS_DEFAULT)
                .doc("Network threads (event loops shared by every listener) reading requests and writing responses; "
                        + "they never wait on the disk, so more than the cores only adds thread switches");
        row(
                        "max.incremental.fetch.session.cache.slots",
                        "--max-incremental-fetch-session-cache-slots",
                        Type.INT,
                        FetchSessionCache.DEFAULT_SLOTS)
                .rule(Range.atLeast(0))
                .doc("Incremental fetch sessions (KIP-227) kept at once; 0 turns them off");
        row("log.cleaner.threads", "--log-cleaner-threads", Type.INT, CleanerSettings.DEFAULTS.threads())
                .rule(Range.atLeast(0))
                .doc(
                        "Threads compacting topics with cleanup.policy=compact; 0 (or log.cleaner.enable=false in the file) "
                                + "turns the cleaner off");
        row(
                        "log.cleaner.dedupe.buffer.size",
                        "--log-cleaner-dedupe-buffer-size",
                        Type.LONG,
                        CleanerSettings.DEFAULTS.dedupeBufferBytes())
                .shown("128 MiB")
                .rule(Range.atLeast(24 * 16))
                .doc(
                        "Memory of the cleaner's key -> offset maps, shared by its threads; a pass whose dirty keys do not "
                                + "fit cleans up to where its map filled");
        row(
                        "log.cleaner.io.buffer.size",
                        "--log-cleaner-io-buffer-size",
                        Type.INT,
                        CleanerSettings.DEFAULTS.ioBufferBytes())
                .shown("512 KiB")
                .rule(Range.atLeast(1024))
                .doc("Each cleaner thread's read and write buffers");
        row(
                        "log.cleaner.backoff.ms",
                        "--log-cleaner-backoff-ms",
                        Type.LONG,
                        CleanerSettings.DEFAULTS.backoff().toMillis())
                .rule(Range.atLeast(1))
                .doc("How long a cleaner thread sleeps when no partition needs cleaning, in milliseconds");
        row("authorizer.class.name", "--authorizer-class-name", Type.STRING, null)
                .shown("none")
                .doc("Enforce ACLs (__cluster/acls.json, kafka-acls, kaas acl) with Apache's own authorizer: "
                        + "org.apache.kafka.metadata.authorizer.StandardAuthorizer, the only class accepted; empty "
                        + "for none. Set super users too, or no one may change ACLs");
        row("super.users", "--super-users", Type.STRING, null)
                .shown("none")
                .doc("Principals allowed everything, ACLs or not: User:NAME[;User:NAME...]");
        row("allow.everyone.if.no.acl.found", "--allow-everyone-if-no-acl-found", Type.STRING, null)
                .shown("false, Apache's")
                .doc("With the authorizer: a resource without any ACL is open to all");
        apacheRow(QuotaConfig.CONFIG_DEF, QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG, "--quota-window-num")
                .doc("Client quotas (kafka-configs --entity-type users|clients) measure rates over N samples");
        apacheRow(QuotaConfig.CONFIG_DEF, QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG, "--quota-window-size-seconds")
                .doc("Each client-quota sample's span in seconds; a request_percentage throttle lasts at most one");
        row("kaas.coordinator", "--coordinator", Type.STRING, null)
                .shown("none: one broker owns the directory")
                .doc(
                        "Share the data directory with other brokers, coordinated by etcd (etcd://HOST:PORT[,HOST:PORT...]) "
                                + "or by Kubernetes Leases and a ConfigMap (k8s://[NAMESPACE][?context=NAME]: in a pod its "
                                + "service account, else the kubeconfig; no namespace: the pod's or the context's): each "
                                + "broker registers under a lease (broker ids must differ), one is elected controller and "
                                + "assigns partitions, a broker that cannot renew its lease stops acknowledging before it can "
                                + "expire, and its partitions move to the others");
        row("inter.broker.listener.name", "--inter-broker-listener-name", Type.STRING, null)
                .shown("the listener security.inter.broker.protocol names")
                .doc("With a coordinator: the listener, advertised by every broker, that the brokers' requests to each "
                        + "other (transaction markers, AddPartitionsToTxn) go to, with its TLS (this broker's keystore "
                        + "and truststore) and SASL; not together with security.inter.broker.protocol");
        row("security.inter.broker.protocol", "--security-inter-broker-protocol", Type.STRING, null)
                .shown("PLAINTEXT, Apache's")
                .doc("With a coordinator: the brokers' requests to each other go to the listener named PLAINTEXT, SSL, "
                        + "SASL_PLAINTEXT or SASL_SSL");
        row("sasl.mechanism.inter.broker.protocol", "--sasl-mechanism-inter-broker-protocol", Type.STRING, null)
                .shown("GSSAPI, Apache's, which kaas does not offer")
                .doc(
                        "With a SASL inter-broker listener: the mechanism brokers log in to each other with, enabled on that "
                                + "listener; the broker's own user and password are its JAAS entry, "
                                + "listener.name.<listener>.<mechanism>.sasl.jaas.config in the config file");
        apacheRow(
                        DelegationTokenManagerConfigs.CONFIG_DEF,
                        DelegationTokenManagerConfigs.DELEGATION_TOKEN_SECRET_KEY_CONFIG,
                        "--delegation-token-secret-key")
                .shown("none: delegation tokens off")
                .doc("Delegation tokens (kafka-delegation-tokens) are served when set: the key their HMACs are made "
                        + "with, the same on every broker; changing it voids every token");
        apacheRow(
                        DelegationTokenManagerConfigs.CONFIG_DEF,
                        DelegationTokenManagerConfigs.DELEGATION_TOKEN_MAX_LIFETIME_CONFIG,
                        "--delegation-token-max-lifetime")
                .shown("168h, 7 days, Apache's")
                .syntax(FlagSyntax.DURATION_MS)
                .doc("A delegation token can be renewed up to this long after it was made, never past it");
        apacheRow(
                        DelegationTokenManagerConfigs.CONFIG_DEF,
                        DelegationTokenManagerConfigs.DELEGATION_TOKEN_EXPIRY_TIME_MS_CONFIG,
                        "--delegation-token-expiry-time")
                .shown("24h, Apache's")
                .syntax(FlagSyntax.DURATION_MS)
                .doc("A delegation token expires this long after it was made or last renewed");
        apacheRow(
                        DelegationTokenManagerConfigs.CONFIG_DEF,
                        DelegationTokenManagerConfigs.DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_CONFIG,
                        "--delegation-token-expiry-check-interval")
                .shown("1h, Apache's")
                .syntax(FlagSyntax.DURATION_MS)
                .doc(
                        "How often expired delegation tokens are deleted (an expired one cannot log in before that either)");
        row("kaas.coordinator.lease.ttl.ms", "--coordinator-lease-ttl", Type.LONG, 6_000L)
                .shown("6s")
                .rule(check(
                        v -> (Long) v >= 3000 && (Long) v % 1000 == 0 ? null : "whole seconds, at least 3s",
                        "at least 3s"))
                .syntax(FlagSyntax.DURATION_MS)
                .doc(
                        "With a coordinator: how long a silent broker keeps its partitions; it stops acknowledging a third "
                                + "of it earlier, and they move a third of it after the store shows the lease expired");
        row("kaas.max.open.files", "--max-open-files", Type.INT, 0)
                .shown("0: 40% of the process's open-file limit, ulimit -n")
                .rule(check(
                        v -> (Integer) v == 0 || (Integer) v >= 16 ? null : "0, or at least 16", "0 or at least 16"))
                .doc("Segment files held open at once; idle ones are closed past it and reopened on use, so partitions "
                        + "cost no file descriptor while idle");
        row("kaas.transaction.version", "--transaction-version", Type.SHORT, (short) 2)
                .rule(Range.between(1, 2))
                .doc("The finalized feature transaction.version a new data directory starts at (as kafka-storage "
                        + "format --feature; kafka-features.sh changes it after): 2 is transaction protocol v2 "
                        + "(KIP-890 part 2: an epoch bump per transaction, partitions added by Produce; Apache "
                        + "4.x's default), 1 the protocol before it");
        row("transaction.max.timeout.ms", "--transaction-max-timeout", Type.INT, 900_000)
                .shown("15m")
                .rule(Range.atLeast(1))
                .syntax(FlagSyntax.DURATION_MS)
                .doc("Longest transaction.timeout.ms a producer may ask for");
        row("transactional.id.expiration.ms", "--transactional-id-expiration", Type.INT, 604_800_000)
                .shown("168h, 7 days")
                .rule(Range.atLeast(1))
                .syntax(FlagSyntax.DURATION_MS)
                .doc("A transactional id with no transaction open and no use for this long is forgotten");
        row("kaas.admin.listener", "--admin-listener", Type.STRING, "127.0.0.1:9644")
                .rule(check(
                        v -> {
                            SettingValues.adminListener(v.toString());
                            return null;
                        },
                        "HOST:PORT or 'none'"))
                .doc("Where to serve /metrics (Prometheus), /healthz and /readyz over HTTP; 'none' turns it off");
        row("kaas.metrics.per.partition", "--metrics-per-partition", Type.BOOLEAN, true)
                .doc("Export per-partition series (offsets, size, consumer-group lag); turn off on brokers with very "
                        + "many partitions");
        row("kaas.log.format", "--log-format", Type.STRING, "text")
                .doc(
                        "Log lines on stderr as 'text' (timestamp, thread, level, logger, message) or 'json' (one object per "
                                + "line)");
        row("kaas.log.level", "--log-level", Type.STRING, "info")
                .doc("Least severe level logged: error, warn, info, debug or trace");
    }

    private static final Map<String, Setting> BY_KEY = byKey();

    private BrokerSettings() {}

    /** Every row, in the order docs/settings.md lists them. */
    public static List<Setting> all() {
        return List.copyOf(ROWS);
    }

    /** The row of {@code key}, or null when kaas has no such setting. */
    public static Setting byKey(String key) {
        return BY_KEY.get(key);
    }

    private static Map<String, Setting> byKey() {
        Map<String, Setting> out = new LinkedHashMap<>();
        ROWS.forEach(s -> out.put(s.key(), s));
        return Map.copyOf(out);
    }

    private static Row row(String key, String flag, Type type, Object defaultValue) {
        return new Row(key, flag, type, defaultValue);
    }

    /** A row whose type, default and rule are Apache's own definition of the key. */
    private static Row apacheRow(ConfigDef def, String key, String flag) {
        ConfigDef.ConfigKey k = def.configKeys().get(key);
        return row(key, flag, k.type, k.defaultValue)
                .shown(k.defaultValue + ", Apache's")
                .rule(k.validator);
    }

    /** One row being declared; {@link #doc} ends it and adds it to the table. */
    private static final class Row {
        private final String key;
        private final String flag;
        private final Type type;
        private final Object defaultValue;
        private String shown;
        private ConfigDef.Validator rule;
        private FlagSyntax syntax = FlagSyntax.AS_KEY;

        private Row(String key, String flag, Type type, Object defaultValue) {
            this.key = key;
            this.flag = flag;
            this.type = type;
            this.defaultValue = defaultValue;
            this.shown = defaultValue == null ? "none" : String.valueOf(defaultValue);
        }

        /** The default in words, for help and docs. */
        Row shown(String text) {
            shown = text;
            return this;
        }

        Row rule(ConfigDef.Validator v) {
            rule = v;
            return this;
        }

        Row syntax(FlagSyntax s) {
            syntax = s;
            return this;
        }

        void doc(String doc) {
            ROWS.add(new Setting(key, flag, Setting.envOf(flag), type, defaultValue, shown, rule, doc, syntax));
        }
    }

    /** A rule as a validator: {@code problem} returns what is wrong with a value, or null. */
    private static ConfigDef.Validator check(java.util.function.Function<Object, String> problem, String rule) {
        return ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    String p;
                    try {
                        p = value == null ? null : problem.apply(value);
                    } catch (IllegalArgumentException e) {
                        p = e.getMessage();
                    }
                    if (p != null) {
                        throw new ConfigException(name, value, p);
                    }
                },
                () -> rule);
    }

    private static String listenersProblem(Object v) {
        Endpoint.parseListOrJson(v.toString());
        return null;
    }

    /** {@code rule}, or unset. */
    /** The message of what {@code parse} throws, or null when it parses. */
    private static String problemOf(Runnable parse) {
        try {
            parse.run();
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static ConfigDef.Validator nullOr(ConfigDef.Validator rule) {
        return ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    if (value != null) {
                        rule.ensureValid(name, value);
                    }
                },
                rule::toString);
    }
}
