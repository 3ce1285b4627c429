package io.kaas.cli;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.LiveOwners;
import io.kaas.storage.StorageException;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.layout.PartitionFinder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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

    @Option(names = "--coordinator", paramLabel = "URI", defaultValue = "${env:KAAS_COORDINATOR}",
            description = "With brokers sharing the data directory: refuse partitions a live broker owns, as the "
                    + "coordination store's assignment and leases say: etcd://HOST:PORT[,HOST:PORT...] or "
                    + "k8s://[NAMESPACE][?context=NAME] (env KAAS_COORDINATOR).")
    private String coordinator;

    @Option(names = "--cluster-id", paramLabel = "ID", defaultValue = "${env:KAAS_CLUSTER_ID}",
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
        ClusterConfig cluster;
        try {
            cluster = ClusterConfig.parse(coordinator.trim());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(mixee.commandLine(), e.getMessage());
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (Path dir : PartitionFinder.find(path)) {
            Path topic = dir.getParent();
            String name = dir.getFileName().toString();
            if (topic != null && name.chars().allMatch(Character::isDigit)) {
                partitions.add(new TopicPartition(topic.getFileName().toString(), Integer.parseInt(name)));
            }
        }
        Map<TopicPartition, Integer> owned;
        try (ClusterStore store = cluster.connect(clusterIdOrDefault(clusterId))) {
            owned = LiveOwners.of(store, partitions);
        }
        if (!owned.isEmpty()) {
            Map.Entry<TopicPartition, Integer> first = owned.entrySet().iterator().next();
            throw new StorageException(StorageException.Kind.LOCKED, first.getKey() + " (and " + (owned.size() - 1)
                    + " more under " + path + ") is owned by live broker " + first.getValue()
                    + " (its lease in the coordination store); stop it, or pass --force");
        }
    }
}
