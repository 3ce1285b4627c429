package io.kaas.broker.txn;

import io.kaas.broker.group.GroupCoordinator;
import org.apache.kafka.common.internals.Topic;

/**
 * A topic partition taking part in a transaction. A group's offsets take part as Apache's do: as the group's
 * {@code __consumer_offsets} partition ({@link #offsetsOf}), whose marker goes to the group's coordinator.
 */
public record TxnPartition(String topic, int partition) implements Comparable<TxnPartition> {
    /** The partition standing for {@code groupId}'s offsets in a transaction: its slot of {@code __consumer_offsets}. */
    public static TxnPartition offsetsOf(String groupId) {
        return new TxnPartition(Topic.GROUP_METADATA_TOPIC_NAME, GroupCoordinator.slotFor(groupId));
    }

    /** Whether this stands for the offsets of the groups of one slot (not a partition of the data directory). */
    public boolean isOffsets() {
        return isOffsetsSlot(topic, partition);
    }

    /** Whether {@code topic}-{@code partition} names a group slot of {@code __consumer_offsets}. */
    public static boolean isOffsetsSlot(String topic, int partition) {
        return Topic.GROUP_METADATA_TOPIC_NAME.equals(topic) && partition >= 0 && partition < GroupCoordinator.SLOTS;
    }

    @Override
    public int compareTo(TxnPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }
}
