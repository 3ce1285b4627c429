package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

/**
 * The store's watch: the state ConfigMap (every change) and the cluster's Leases (added or deleted: membership
 * changes, not each renewal, which would wake every broker every ttl/4; the controller Lease's every change). A Lease
 * that merely goes silent makes no event: the caller's periodic pass notices it. Events come on fabric8's threads.
 */
final class StoreWatches {
    private StoreWatches() {}

    /** Watches both; {@code onChange} once they are in place and at each event, {@code onLost} when either ends. */
    static AutoCloseable watch(KubernetesCalls api, StateConfigMap state, Runnable onChange, Runnable onLost) {
        Watch ofState = api.call(
                () -> state.resource().watch(new Watcher<ConfigMap>() {
                    @Override
                    public void eventReceived(Action action, ConfigMap resource) {
                        onChange.run();
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                        onLost.run();
                    }
                }),
                "watch the cluster state");
        Watch ofLeases;
        try {
            ofLeases = api.call(
                    () -> api.leases()
                            .withLabel(KubernetesCalls.CLUSTER_LABEL, api.prefix())
                            .watch(new Watcher<Lease>() {
                                @Override
                                public void eventReceived(Action action, Lease resource) {
                                    if (action != Action.MODIFIED
                                            || resource.getMetadata().getName().endsWith("-controller")) {
                                        onChange.run();
                                    }
                                }

                                @Override
                                public void onClose(WatcherException cause) {
                                    onLost.run();
                                }
                            }),
                    "watch the leases");
        } catch (RuntimeException e) {
            ofState.close();
            throw e;
        }
        onChange.run(); // in place
        return () -> {
            ofState.close();
            ofLeases.close();
        };
    }
}
