package io.kaas.cli;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.io.StorageException;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --coordinator} and {@code --cluster-id} for the offline commands that change files: with brokers
 * sharing the data directory (kaas serve --coordinator), a partition is owned by the broker the etcd
 * assignment names (in etcd or Kubernetes) while that broker's lease holds; such a partition is refused like one under a
 * running broker's OS lock (exit 3), unless {@code --force} or a dry run.
 */
public final class CoordinatorMixin {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    @Option(
            names = "--coordinator",
            paramLabel = "URI",
            defaultValue = "${env:KAAS_COORDINATOR}",
            description = "With brokers sharing the data directory: refuse partitions a live broker owns, as the "
                    + "coordination store's assignment and leases say: etcd://HOST:PORT[,HOST:PORT...] or "
                    + "k8s://[NAMESPACE][?context=NAME] (env KAAS_COORDINATOR).")
    private String coordinator;

    @Option(
            names = "--cluster-id",
            paramLabel = "ID",
            defaultValue = "${env:KAAS_CLUSTER_ID}",
            description = "With --coordinator: the brokers' --cluster-id (env KAAS_CLUSTER_ID; default kaas serve's).")
    private String clusterId;

    /** {@code --cluster-id} as given, or kaas serve's default. */
    static String clusterIdOrDefault(String clusterId) {
        return clusterId == null || clusterId.isBlank() ? BrokerConfig.DEFAULT_CLUSTER_ID : clusterId;
    }

    /**
     * Throws naming the first partition under {@code path} a live broker owns; nothing without
     * {@code --coordinator} or when {@code skip}.
     *
     * @throws StorageException LOCKED
     */
    public void refuseLiveOwned(Path path, boolean skip) {
        if (skip || coordinator == null || coordinator.isBlank()) {
            return;
        }
        // The coordination store's code is reached only from here, in a class of its own: bin/kaas gives the
        // broker's jars to a command only when it names a store, so the rest never loads it.
        new LiveOwnerCheck(mixee, coordinator.trim(), clusterIdOrDefault(clusterId)).refuse(path);
    }
}
