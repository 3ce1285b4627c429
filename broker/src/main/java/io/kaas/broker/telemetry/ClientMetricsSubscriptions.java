package io.kaas.broker.telemetry;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StateFileLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.server.metrics.ClientMetricsConfigs;

/**
 * The client-metrics subscriptions (ConfigResource CLIENT_METRICS, KIP-714: {@code kafka-client-metrics.sh},
 * {@code kafka-configs --entity-type client-metrics}), durable in {@code <data>/__cluster/client-metrics.json}.
 * A change is validated by Apache's own {@link ClientMetricsConfigs#validate} over the subscription's whole new
 * set of configs and written atomically before it is answered, under the file's lock; every subscription, at
 * start and whenever it changes (here, or by another broker sharing the directory: {@link #refresh}), is handed to
 * {@code onChange} (the telemetry manager's {@code updateSubscription}; an empty set removes it, as Apache's config
 * deletion does).
 */
public final class ClientMetricsSubscriptions {
    /** The file's shape: each subscription's set configs by Apache's names. */
    public record SubscriptionsFile(int version, Map<String, Map<String, String>> subscriptions) {}

    private final Path file;
    private final Object lock = new Object();
    private final BiConsumer<String, Properties> onChange;
    // Guarded by lock: the file's content as this broker last read or wrote it, and the file's time then.
    private Map<String, Map<String, String>> byName;
    private FileTime readAt;

    public ClientMetricsSubscriptions(Path file, BiConsumer<String, Properties> onChange) {
        this.file = file;
        this.onChange = onChange;
        synchronized (lock) {
            this.readAt = modified();
            this.byName = read();
            byName.forEach((name, configs) -> onChange.accept(name, properties(configs)));
        }
    }

    /** The configs set on subscription {@code name} (empty when it does not exist). */
    public Map<String, String> configs(String name) {
        synchronized (lock) {
            refresh();
            return byName.getOrDefault(name, Map.of());
        }
    }

    /** The subscriptions' names (ListConfigResources). */
    public java.util.Set<String> names() {
        synchronized (lock) {
            refresh();
            return java.util.Set.copyOf(byName.keySet());
        }
    }

    /**
     * Replaces subscription {@code name}'s configs by {@code change} of the current ones, after Apache's
     * validation ({@code InvalidRequestException} or {@code InvalidConfigurationException} otherwise); with
     * {@code validateOnly}, nothing is written.
     */
    public void alter(String name, UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        synchronized (lock) {
            if (validateOnly) {
                ClientMetricsConfigs.validate(name, properties(change.apply(byName.getOrDefault(name, Map.of()))));
                return;
            }
            try (StateFileLock held = StateFileLock.exclusive(file)) {
                Map<String, Map<String, String>> current = read(); // another broker may have written it
                Map<String, String> proposed = new TreeMap<>(change.apply(current.getOrDefault(name, Map.of())));
                ClientMetricsConfigs.validate(name, properties(proposed));
                Map<String, Map<String, String>> next = new TreeMap<>(current);
                if (proposed.isEmpty()) {
                    next.remove(name);
                } else {
                    next.put(name, Map.copyOf(proposed));
                }
                StateJson.write(file, new SubscriptionsFile(1, next));
                readAt = modified();
                Map<String, Map<String, String>> before = byName;
                byName = Map.copyOf(next);
                handChanges(before, byName); // this change, and any another broker made before it
            }
        }
    }

    /**
     * Reads the file again when its time changed (another broker sharing the directory altered a subscription),
     * and hands each changed subscription to {@code onChange}: one stat per call.
     */
    public void refresh() {
        synchronized (lock) {
            FileTime modified = modified();
            if (modified == null || modified.equals(readAt)) {
                return;
            }
            Map<String, Map<String, String>> before = byName;
            byName = read();
            readAt = modified;
            handChanges(before, byName);
        }
    }

    private void handChanges(Map<String, Map<String, String>> before, Map<String, Map<String, String>> after) {
        java.util.Set<String> names = new java.util.TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        for (String n : names) {
            if (!java.util.Objects.equals(before.get(n), after.get(n))) {
                onChange.accept(n, properties(after.getOrDefault(n, Map.of())));
            }
        }
    }

    private FileTime modified() {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return null; // absent or unreadable: the subscriptions last read stand
        }
    }

    private static Properties properties(Map<String, String> configs) {
        Properties p = new Properties();
        p.putAll(configs);
        return p;
    }

    private Map<String, Map<String, String>> read() {
        return StateJson.read(file, SubscriptionsFile.class)
                .map(f -> f.subscriptions() == null
                        ? Map.<String, Map<String, String>>of()
                        : Map.copyOf(f.subscriptions()))
                .orElse(Map.of());
    }
}
