package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kaas.cluster.CoordinationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The ConfigMap {@code kaas-ID}, key {@code state.json} ({@link SharedState}): registrations, the assignment, topics,
 * epochs, holders and the producer-id counter, read whole and written whole, every change a compare-and-set on the
 * ConfigMap's resourceVersion (a conflict re-reads and redoes the change, until the store's timeout). Thread-safe.
 */
final class StateConfigMap {
    private static final String STATE_KEY = "state.json";

    private final KubernetesCalls api;
    private final Duration timeout;

    StateConfigMap(KubernetesCalls api, Duration timeout) {
        this.api = api;
        this.timeout = timeout;
    }

    /** The ConfigMap (which may not exist yet: no state written). */
    Resource<ConfigMap> resource() {
        return api.configMaps().withName(api.prefix());
    }

    SharedState read() {
        ConfigMap cm = api.call(() -> resource().get(), "read the cluster state");
        return SharedState.parse(
                cm == null || cm.getData() == null ? null : cm.getData().get(STATE_KEY), name());
    }

    /**
     * Applies {@code change} to the state as read and writes the result by compare-and-set on the ConfigMap's
     * resourceVersion, again from a fresh read on a conflict; writes nothing when {@code change} changed nothing.
     */
    <T> T update(String what, Function<SharedState, T> change) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ConfigMap cm = api.call(() -> resource().get(), what);
            String before =
                    cm == null || cm.getData() == null ? null : cm.getData().get(STATE_KEY);
            SharedState s = SharedState.parse(before, name());
            T result = change.apply(s);
            String after = s.toJson();
            if (after.equals(before) || (before == null && after.equals(new SharedState().toJson()))) {
                return result;
            }
            try {
                if (cm == null) {
                    ConfigMap created = new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName(api.prefix())
                            .withLabels(api.labels("state"))
                            .endMetadata()
                            .withData(Map.of(STATE_KEY, after))
                            .build();
                    api.call(() -> api.configMaps().resource(created).create(), what);
                } else {
                    cm.setData(new HashMap<>(Map.of(STATE_KEY, after)));
                    api.call(() -> api.configMaps().resource(cm).update(), what);
                }
                return result;
            } catch (CoordinationException e) {
                if (KubernetesCalls.code(e) != 409 || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                // Another broker wrote in between: redo the change on what it wrote.
            }
        }
    }

    /** "ConfigMap NAMESPACE/NAME", for errors. */
    private String name() {
        return "ConfigMap " + api.namespace() + "/" + api.prefix();
    }
}
