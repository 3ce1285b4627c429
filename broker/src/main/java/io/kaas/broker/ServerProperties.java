package io.kaas.broker;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.storage.CleanerSettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * An Apache {@code server.properties} as {@code kaas serve --config FILE} reads it: the keys that
 * apply to one kaas broker become {@link BrokerConfig} values and a {@link SecurityConfig}; every other
 * key is named in {@link #notApplied()} (one warning line, never silently dropped). A bad value throws
 * {@link ConfigException} naming the key and the rule, in Apache's words where Apache defines the key
 * (types and validators are kafka-clients' {@link ConfigDef}; security keys are checked with
 * {@code BrokerSecurityConfigs}).
 *
 * <p>Listeners named in {@code controller.listener.names} are KRaft controller ports; kaas has no
 * controller, so they are left out (and named in the warning).
 */
public final class ServerProperties {
    /** How one mapped key is typed and validated. */
    private record Rule(Type type, ConfigDef.Validator validator) {}

    private static final Map<String, Rule> MAPPED = new LinkedHashMap<>();

    static {
        MAPPED.put("listeners", new Rule(Type.STRING, null));
        MAPPED.put("advertised.listeners", new Rule(Type.STRING, null));
        MAPPED.put("controller.listener.names", new Rule(Type.LIST, null));
        MAPPED.put("node.id", new Rule(Type.INT, Range.atLeast(0)));
        MAPPED.put("broker.id", new Rule(Type.INT, Range.atLeast(0)));
        MAPPED.put("log.dirs", new Rule(Type.LIST, null));
        MAPPED.put("log.dir", new Rule(Type.STRING, null));
        MAPPED.put("log.flush.interval.messages", new Rule(Type.LONG, Range.atLeast(1)));
        // The engine's floor; Apache's is lower in old releases and 1 MiB since 4.0.
        MAPPED.put("log.segment.bytes", new Rule(Type.INT, Range.atLeast(1024)));
        MAPPED.put("log.retention.check.interval.ms", new Rule(Type.LONG, Range.atLeast(1)));
        MAPPED.put("log.cleaner.enable", new Rule(Type.BOOLEAN, null));
        MAPPED.put("log.cleaner.threads", new Rule(Type.INT, Range.atLeast(0)));
        MAPPED.put("log.cleaner.dedupe.buffer.size", new Rule(Type.LONG, Range.atLeast(24 * 16)));
        MAPPED.put("log.cleaner.io.buffer.size", new Rule(Type.INT, Range.atLeast(1024)));
        MAPPED.put("log.cleaner.backoff.ms", new Rule(Type.LONG, Range.atLeast(1)));
        MAPPED.put("num.partitions", new Rule(Type.INT, Range.atLeast(1)));
        MAPPED.put("auto.create.topics.enable", new Rule(Type.BOOLEAN, null));
        MAPPED.put("socket.request.max.bytes", new Rule(Type.INT, Range.atLeast(64)));
        ConfigDef.Validator bufferSize = ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    String problem = value == null ? null : io.kaas.protocol.SocketBuffers.problem((Integer) value);
                    if (problem != null) {
                        throw new ConfigException(name, value, problem);
                    }
                },
                () -> "positive, or -1 for the operating system's default");
        MAPPED.put("socket.send.buffer.bytes", new Rule(Type.INT, bufferSize));
        MAPPED.put("socket.receive.buffer.bytes", new Rule(Type.INT, bufferSize));
        MAPPED.put("max.incremental.fetch.session.cache.slots", new Rule(Type.INT, Range.atLeast(0)));
        MAPPED.put("num.io.threads", new Rule(Type.INT, Range.atLeast(1)));
        MAPPED.put("num.network.threads", new Rule(Type.INT, Range.atLeast(1)));
        MAPPED.put("transaction.max.timeout.ms", new Rule(Type.INT, Range.atLeast(1)));
        MAPPED.put("transactional.id.expiration.ms", new Rule(Type.INT, Range.atLeast(1)));
    }

    private final Map<String, Object> values;
    private final SecurityConfig security;
    private final Set<String> notApplied;
    private final Path source;

    private ServerProperties(Path source, Map<String, Object> values, SecurityConfig security, Set<String> notApplied) {
        this.source = source;
        this.values = values;
        this.security = security;
        this.notApplied = notApplied;
    }

    public static ServerProperties load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> raw = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k).trim()));
        return parse(file, raw);
    }

    static ServerProperties parse(Path source, Map<String, String> raw) {
        Map<String, Object> values = new HashMap<>();
        Map<String, String> security = new HashMap<>();
        Set<String> notApplied = new TreeSet<>();
        raw.forEach((key, value) -> {
            Rule rule = MAPPED.get(key);
            if (rule != null) {
                Object parsed = ConfigDef.parseType(key, value, rule.type());
                if (rule.validator() != null) {
                    rule.validator().ensureValid(key, parsed);
                }
                values.put(key, parsed);
            } else if (SecurityConfig.isSecurityKey(key)) {
                security.put(key, value);
            } else {
                notApplied.add(key);
            }
        });
        ServerProperties out = new ServerProperties(source, values, new SecurityConfig(security), notApplied);
        out.check();
        return out;
    }

    private void check() {
        if (values.containsKey("node.id")
                && values.containsKey("broker.id")
                && !values.get("node.id").equals(values.get("broker.id"))) {
            throw new ConfigException(
                    "broker.id",
                    values.get("broker.id"),
                    "must equal node.id (" + values.get("node.id") + ") when both are set");
        }
        @SuppressWarnings("unchecked")
        List<String> dirs = (List<String>) values.get("log.dirs");
        if (dirs != null && dirs.size() != 1) {
            throw new ConfigException("log.dirs", String.join(",", dirs), "kaas serves exactly one data directory");
        }
        listeners();
        advertisedListeners();
        security.validate(listeners().isEmpty() ? List.of() : listeners());
    }

    /** The config file's keys applied to {@code base}; keys the file does not set keep {@code base}'s value. */
    public BrokerConfig applyTo(BrokerConfig base) {
        BrokerConfig c = base;
        if (!listeners().isEmpty()) {
            c = c.withListeners(listeners());
        }
        if (values.containsKey("advertised.listeners")) {
            c = c.withAdvertisedListeners(advertisedListeners());
        }
        Object id = values.getOrDefault("node.id", values.get("broker.id"));
        if (id != null) {
            c = c.withBrokerId((Integer) id);
        }
        if (dataDir().isPresent()) {
            c = c.withDataDir(dataDir().get());
        }
        if (values.containsKey("log.flush.interval.messages")) {
            c = c.withFlushIntervalMessages((Long) values.get("log.flush.interval.messages"));
        }
        if (values.containsKey("log.segment.bytes")) {
            c = c.withSegmentBytes((Integer) values.get("log.segment.bytes"));
        }
        if (values.containsKey("log.retention.check.interval.ms")) {
            c = c.withRetentionCheckInterval(Duration.ofMillis((Long) values.get("log.retention.check.interval.ms")));
        }
        c = c.withCleaner(cleaner(c.cleaner()));
        if (values.containsKey("num.partitions")) {
            c = c.withDefaultPartitions((Integer) values.get("num.partitions"));
        }
        if (values.containsKey("auto.create.topics.enable")) {
            c = c.withAutoCreateTopics((Boolean) values.get("auto.create.topics.enable"));
        }
        if (values.containsKey("max.incremental.fetch.session.cache.slots")) {
            c = c.withFetchSessionCacheSlots((Integer) values.get("max.incremental.fetch.session.cache.slots"));
        }
        if (values.containsKey("socket.request.max.bytes")) {
            c = c.withSocketRequestMaxBytes((Integer) values.get("socket.request.max.bytes"));
        }
        if (values.containsKey("num.io.threads")) {
            c = c.withRequestHandlerThreads((Integer) values.get("num.io.threads"));
        }
        c = c.withSocketBuffers(new io.kaas.protocol.SocketBuffers(
                (Integer) values.getOrDefault(
                        "socket.send.buffer.bytes", c.socketBuffers().sendBytes()),
                (Integer) values.getOrDefault(
                        "socket.receive.buffer.bytes", c.socketBuffers().receiveBytes())));
        if (values.containsKey("num.network.threads")) {
            c = c.withNetworkThreads((Integer) values.get("num.network.threads"));
        }
        return c;
    }

    /** The config file's transaction coordinator keys applied to {@code base}. */
    public io.kaas.broker.txn.TransactionConfig applyTo(io.kaas.broker.txn.TransactionConfig base) {
        io.kaas.broker.txn.TransactionConfig t = base;
        if (values.containsKey("transaction.max.timeout.ms")) {
            t = t.withMaxTimeout(Duration.ofMillis((Integer) values.get("transaction.max.timeout.ms")));
        }
        if (values.containsKey("transactional.id.expiration.ms")) {
            t = t.withIdExpiration(Duration.ofMillis((Integer) values.get("transactional.id.expiration.ms")));
        }
        return t;
    }

    /** The log.cleaner.* keys the file sets, over {@code base}; log.cleaner.enable=false means no cleaner threads. */
    private CleanerSettings cleaner(CleanerSettings base) {
        int threads = values.containsKey("log.cleaner.threads")
                ? (Integer) values.get("log.cleaner.threads")
                : base.threads();
        if (Boolean.FALSE.equals(values.get("log.cleaner.enable"))) {
            threads = 0;
        }
        long dedupe = values.containsKey("log.cleaner.dedupe.buffer.size")
                ? (Long) values.get("log.cleaner.dedupe.buffer.size")
                : base.dedupeBufferBytes();
        int io = values.containsKey("log.cleaner.io.buffer.size")
                ? (Integer) values.get("log.cleaner.io.buffer.size")
                : base.ioBufferBytes();
        Duration backoff = values.containsKey("log.cleaner.backoff.ms")
                ? Duration.ofMillis((Long) values.get("log.cleaner.backoff.ms"))
                : base.backoff();
        return new CleanerSettings(threads, dedupe, io, backoff);
    }

    /** Whether the file sets the value a {@code kaas serve} option would (for "the flag wins" checks). */
    public boolean sets(String key) {
        return values.containsKey(key);
    }

    public java.util.Optional<Path> dataDir() {
        @SuppressWarnings("unchecked")
        List<String> dirs = (List<String>) values.get("log.dirs");
        if (dirs != null) {
            return java.util.Optional.of(Path.of(dirs.get(0)));
        }
        Object dir = values.get("log.dir");
        return dir == null ? java.util.Optional.empty() : java.util.Optional.of(Path.of(dir.toString()));
    }

    /** {@code listeners} without the KRaft controller listeners; empty when the file sets none. */
    public List<Endpoint> listeners() {
        List<Endpoint> out = brokerEndpoints("listeners");
        if (out.isEmpty()
                && values.get("listeners") != null
                && !values.get("listeners").toString().isBlank()) {
            throw new ConfigException(
                    "listeners",
                    values.get("listeners"),
                    "no broker listener left after removing controller.listener.names");
        }
        return out;
    }

    private List<Endpoint> advertisedListeners() {
        return brokerEndpoints("advertised.listeners");
    }

    /** The endpoints of {@code key}, controller listeners left out. */
    private List<Endpoint> brokerEndpoints(String key) {
        Object text = values.get(key);
        if (text == null || text.toString().isBlank()) {
            return List.of();
        }
        List<Endpoint> out = new ArrayList<>();
        for (Endpoint e : parseListeners(key, text.toString())) {
            if (!controllerListeners().contains(e.listenerName())) {
                out.add(e);
            }
        }
        return out;
    }

    private List<String> controllerListeners() {
        @SuppressWarnings("unchecked")
        List<String> names = (List<String>) values.getOrDefault("controller.listener.names", List.of());
        return names.stream().map(n -> n.toUpperCase(Locale.ROOT)).toList();
    }

    private static List<Endpoint> parseListeners(String key, String text) {
        try {
            return Endpoint.parseList(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, text, e.getMessage());
        }
    }

    public SecurityConfig security() {
        return security;
    }

    /** Keys kaas does not apply (Apache-only settings: controller quorum, replication, thread counts, ...). */
    public Set<String> notApplied() {
        Set<String> out = new TreeSet<>(notApplied);
        out.addAll(security.unusedLoginKeys());
        if (!controllerListeners().isEmpty()) {
            out.add("listeners[" + String.join(",", controllerListeners()) + "]");
        }
        return out;
    }

    /** The one warning line for {@link #notApplied()}, or empty when every key applied. */
    public java.util.Optional<String> notAppliedWarning() {
        Set<String> keys = notApplied();
        if (keys.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(source + ": " + keys.size() + " key(s) do not apply to kaas and are ignored: "
                + String.join(", ", keys));
    }
}
