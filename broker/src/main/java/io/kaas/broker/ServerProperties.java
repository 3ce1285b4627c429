package io.kaas.broker;

import io.kaas.broker.config.BrokerSettings;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.Endpoint;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * An Apache {@code server.properties} as {@code kaas serve --config FILE} reads it, sorted three ways: the
 * keys of {@link BrokerSettings} rows ({@link #settings()}, typed and checked there, like a flag's value),
 * the listener security keys ({@link #security()}, checked by {@link SecurityConfig}), and every other key
 * ({@link #notApplied}: one warning line, never silently dropped). Immutable.
 *
 * <p>Apache's older or folded spellings become the row's key here, so the table holds one key per
 * setting: {@code broker.id} is {@code node.id} (they must agree when both are set), {@code
 * log.dir} and {@code log.dirs} are rows of their own (log.dirs wins), {@code log.cleaner.enable=false} is {@code log.cleaner.threads=0}, and listeners named
 * in {@code controller.listener.names} are KRaft controller ports, which kaas does not have: they are left
 * out of {@code listeners} and {@code advertised.listeners} (and named in the warning).
 */
public final class ServerProperties {
    private static final String CONTROLLER_NAMES = "controller.listener.names";

    private final Path source;
    private final Map<String, String> settings;
    private final SecurityConfig security;
    private final Set<String> notApplied;

    private ServerProperties(
            Path source, Map<String, String> settings, SecurityConfig security, Set<String> notApplied) {
        this.source = source;
        this.settings = Map.copyOf(settings);
        this.security = security;
        this.notApplied = Set.copyOf(notApplied);
    }

    public static ServerProperties load(Path file) throws IOException {
        java.util.Properties p = new java.util.Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> raw = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k).trim()));
        return parse(file, raw);
    }

    static ServerProperties parse(Path source, Map<String, String> raw) {
        Map<String, String> settings = new HashMap<>();
        Map<String, String> security = new HashMap<>();
        Set<String> notApplied = new TreeSet<>();
        raw.forEach((key, value) -> {
            if (BrokerSettings.byKey(key) != null) {
                settings.put(key, value);
            } else if (SecurityConfig.isSecurityKey(key)) {
                security.put(key, value);
            } else if (!List.of("broker.id", "log.cleaner.enable", CONTROLLER_NAMES)
                    .contains(key)) {
                notApplied.add(key);
            }
        });
        foldOlderNames(raw, settings);
        List<String> controllers = controllerListeners(raw);
        if (!controllers.isEmpty()) {
            withoutControllers(settings, "listeners", controllers);
            withoutControllers(settings, "advertised.listeners", controllers);
            notApplied.add("listeners[" + String.join(",", controllers) + "]");
        }
        return new ServerProperties(source, settings, new SecurityConfig(security), notApplied);
    }

    private static void foldOlderNames(Map<String, String> raw, Map<String, String> settings) {
        String brokerId = raw.get("broker.id");
        if (brokerId != null) {
            Object id = ConfigDef.parseType("broker.id", brokerId, Type.INT);
            String nodeId = raw.get("node.id");
            if (nodeId == null) {
                settings.put("node.id", brokerId);
            } else if (!id.equals(ConfigDef.parseType("node.id", nodeId, Type.INT))) {
                throw new ConfigException("broker.id", id, "must equal node.id (" + nodeId + ") when both are set");
            }
        }
        String cleaner = raw.get("log.cleaner.enable");
        if (cleaner != null && !(Boolean) ConfigDef.parseType("log.cleaner.enable", cleaner, Type.BOOLEAN)) {
            settings.put("log.cleaner.threads", "0");
        }
    }

    private static List<String> controllerListeners(Map<String, String> raw) {
        String names = raw.get(CONTROLLER_NAMES);
        if (names == null) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<String> list = (List<String>) ConfigDef.parseType(CONTROLLER_NAMES, names, Type.LIST);
        return list.stream().map(n -> n.toUpperCase(Locale.ROOT)).toList();
    }

    /** {@code key}'s listeners less the controller ones; a list of only controllers leaves no broker listener. */
    private static void withoutControllers(Map<String, String> settings, String key, List<String> controllers) {
        String text = settings.get(key);
        if (text == null || text.isBlank()) {
            return;
        }
        List<Endpoint> all;
        try {
            all = Endpoint.parseListOrJson(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, text, e.getMessage());
        }
        List<Endpoint> left = all.stream()
                .filter(e -> !controllers.contains(e.listenerName()))
                .toList();
        if (left.isEmpty() && key.equals("listeners")) {
            throw new ConfigException(key, text, "no broker listener left after removing " + CONTROLLER_NAMES);
        }
        settings.put(key, left.stream().map(Endpoint::toString).collect(Collectors.joining(",")));
    }

    /** The file's values of {@link BrokerSettings} rows, by key, as written (Apache's older names folded in). */
    public Map<String, String> settings() {
        return settings;
    }

    /** The file's listener security keys (those that are not rows of the table). */
    public SecurityConfig security() {
        return security;
    }

    public Path source() {
        return source;
    }

    /**
     * Keys kaas does not apply (Apache-only settings: controller quorum, replication, ...), and the JAAS entries
     * that {@code security}, the broker's security as finally configured, does not log in with.
     */
    public Set<String> notApplied(SecurityConfig security) {
        Set<String> out = new TreeSet<>(notApplied);
        out.addAll(security.unusedLoginKeys());
        return out;
    }

    /** The one warning line for {@link #notApplied}, or empty when every key applied. */
    public Optional<String> notAppliedWarning(SecurityConfig security) {
        Set<String> keys = notApplied(security);
        if (keys.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(source + ": " + keys.size() + " key(s) do not apply to kaas and are ignored: "
                + String.join(", ", keys));
    }
}
