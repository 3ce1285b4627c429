package io.kaas.cli;

import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.LiveOwners;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionFinder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** {@link CoordinatorMixin#refuseLiveOwned}'s look at the coordination store: which partitions live brokers own. */
final class LiveOwnerCheck {
    private final CommandSpec mixee;
    private final String coordinator;
    private final String clusterId;

    LiveOwnerCheck(CommandSpec mixee, String coordinator, String clusterId) {
        this.mixee = mixee;
        this.coordinator = coordinator;
        this.clusterId = clusterId;
    }

    /**
     * Throws naming the first partition under {@code path} a live broker owns.
     *
     * @throws StorageException LOCKED
     */
    void refuse(Path path) {
        ClusterConfig cluster;
        try {
            cluster = ClusterConfig.parse(coordinator);
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
        try (ClusterStore store = cluster.connect(clusterId)) {
            owned = LiveOwners.of(store, partitions);
        }
        if (!owned.isEmpty()) {
            Map.Entry<TopicPartition, Integer> first =
                    owned.entrySet().iterator().next();
            throw new StorageException(
                    StorageException.Kind.LOCKED,
                    first.getKey() + " (and " + (owned.size() - 1)
                            + " more under " + path + ") is owned by live broker " + first.getValue()
                            + " (its lease in the coordination store); stop it, or pass --force");
        }
    }
}
