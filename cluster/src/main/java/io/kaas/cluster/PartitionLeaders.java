package io.kaas.cluster;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.StorageException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who leads what, as Metadata tells clients. One broker leads everything ({@link #single}); several brokers
 * over one shared directory answer from their coordination store's assignment
 * ({@code io.kaas.cluster.ClusterMember}).
 */
public interface PartitionLeaders {
    /** Every live broker, {@code self} (as the client's listener advertises it) among them. */
    List<BrokerNode> brokers(BrokerNode self);

    /** The broker leading {@code tp}, or empty when none does right now (LEADER_NOT_AVAILABLE). */
    OptionalInt leader(TopicPartition tp, BrokerNode self);

    /** The node id Metadata and DescribeCluster name as controller. */
    int controllerId(BrokerNode self);

    /** The broker coordinating the groups of slot {@code slot} ({@code __consumer_offsets} partition), or -1: none now. */
    default int groupCoordinator(int slot, BrokerNode self) {
        return controllerId(self);
    }

    /** The broker coordinating the transactional ids of slot {@code slot} ({@code __transaction_state} partition), or -1. */
    default int transactionCoordinator(int slot, BrokerNode self) {
        return controllerId(self);
    }

    /** A partition's leader and its epoch (-1: not known here) as Metadata and DescribeTopicPartitions answer. */
    record Leadership(int leaderId, int leaderEpoch) {}

    /**
     * {@code tp}'s leader and epoch, or empty when none leads it now. The epoch is read from this broker's
     * engine (memory only) for its own partitions; another broker's is that broker's to publish, and -1
     * (unknown), which clients accept, is answered for it, as for one whose takeover is still under way.
     */
    default Optional<Leadership> leadership(TopicPartition tp, BrokerNode self, StorageEngine engine) {
        OptionalInt leader = leader(tp, self);
        if (leader.isEmpty()) {
            return Optional.empty();
        }
        if (leader.getAsInt() != self.nodeId()) {
            return Optional.of(new Leadership(leader.getAsInt(), -1));
        }
        try {
            return Optional.of(
                    new Leadership(self.nodeId(), engine.partitionState(tp).leaderEpoch()));
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.NOT_OWNED) {
                return Optional.of(new Leadership(self.nodeId(), -1));
            }
            throw e;
        }
    }

    /** This broker leads every partition. */
    static PartitionLeaders single() {
        return new PartitionLeaders() {
            @Override
            public List<BrokerNode> brokers(BrokerNode self) {
                return List.of(self);
            }

            @Override
            public OptionalInt leader(TopicPartition tp, BrokerNode self) {
                return OptionalInt.of(self.nodeId());
            }

            @Override
            public int controllerId(BrokerNode self) {
                return self.nodeId();
            }
        };
    }
}
