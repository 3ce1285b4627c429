package io.kaas.broker.telemetry;

import io.kaas.storage.format.SharedStateFile;
import java.nio.file.Path;
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
    public record SubscriptionsFile(int version, Map<String, Map<String, String>> subscriptions) {
        public SubscriptionsFile {
            subscriptions = java.util.Collections.unmodifiableMap(
                    subscriptions == null ? new TreeMap<>() : new TreeMap<>(subscriptions));
        }
    }

    private final SharedStateFile<SubscriptionsFile> file;
    private final Object lock = new Object();
    private final BiConsumer<String, Properties> onChange;
    // Guarded by lock: the file version last handed to onChange.
    private SubscriptionsFile seen;

    public ClientMetricsSubscriptions(Path file, BiConsumer<String, Properties> onChange) {
        this.file = SharedStateFile.of(file, SubscriptionsFile.class, new SubscriptionsFile(1, Map.of()));
        this.onChange = onChange;
        synchronized (lock) {
            this.seen = this.file.current();
            seen.subscriptions().forEach((name, configs) -> onChange.accept(name, properties(configs)));
        }
    }

    /** The configs set on subscription {@code name} (empty when it does not exist). */
    public Map<String, String> configs(String name) {
        synchronized (lock) {
            refresh();
            return seen.subscriptions().getOrDefault(name, Map.of());
        }
    }

    /** The subscriptions' names (ListConfigResources). */
    public java.util.Set<String> names() {
        synchronized (lock) {
            refresh();
            return java.util.Set.copyOf(seen.subscriptions().keySet());
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
                ClientMetricsConfigs.validate(name, properties(change.apply(configs(name))));
                return;
            }
            file.update(f -> {
                Map<String, String> proposed =
                        new TreeMap<>(change.apply(f.subscriptions().getOrDefault(name, Map.of())));
                ClientMetricsConfigs.validate(name, properties(proposed));
                Map<String, Map<String, String>> next = new TreeMap<>(f.subscriptions());
                if (proposed.isEmpty()) {
                    next.remove(name);
                } else {
                    next.put(name, Map.copyOf(proposed));
                }
                return new SubscriptionsFile(1, next);
            });
            refresh(); // this change, and any another broker made before it
        }
    }

    /**
     * Reads the file again when it changed (another broker sharing the directory altered a subscription), and
     * hands each changed subscription to {@code onChange}: one stat per call.
     */
    public void refresh() {
        synchronized (lock) {
            SubscriptionsFile now = file.current();
            if (now != seen) {
                SubscriptionsFile before = seen;
                seen = now;
                handChanges(before.subscriptions(), now.subscriptions());
            }
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

    private static Properties properties(Map<String, String> configs) {
        Properties p = new Properties();
        p.putAll(configs);
        return p;
    }
}
