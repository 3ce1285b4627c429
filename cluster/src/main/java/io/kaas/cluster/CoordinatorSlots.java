package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.internals.Topic;

/**
 * The coordinator slots the assignment places beside the partitions, keyed as Apache's: a group's coordinator is the
 * holder of its {@code __consumer_offsets} slot ({@code Utils.abs(groupId.hashCode()) % 50}, Apache's default
 * {@code offsets.topic.num.partitions}), a transactional id's the holder of its {@code __transaction_state} slot
 * (likewise, 50). A slot is assigned, claimed (its epoch, the coordinator epoch, bumped by compare-and-set), held under
 * the lease and released exactly as a partition is ({@link ClusterStore#claim}); only what a broker does on gaining
 * or losing it differs: it loads or gives up the slot's groups or transactions instead of opening files.
 */
public enum CoordinatorSlots {
    GROUP(Topic.GROUP_METADATA_TOPIC_NAME, CoordinatorSlots.GROUP_SLOTS),
    TRANSACTION(Topic.TRANSACTION_STATE_TOPIC_NAME, CoordinatorSlots.TRANSACTION_SLOTS);

    /** Apache's default {@code offsets.topic.num.partitions}: the group coordinator's slots. */
    public static final int GROUP_SLOTS = 50;
    /** Apache's default {@code transaction.state.log.num.partitions}: the transaction coordinator's slots. */
    public static final int TRANSACTION_SLOTS = 50;

    private final String name;
    private final int slots;

    CoordinatorSlots(String name, int slots) {
        this.name = name;
        this.slots = slots;
    }

    /** The name the assignment and the store key this kind's slots by (Apache's internal topic's). */
    public String topic() {
        return name;
    }

    public int slots() {
        return slots;
    }

    /** Slot {@code slot} as the assignment and the store know it. */
    public TopicPartition slot(int slot) {
        return new TopicPartition(name, slot);
    }

    /** The kind a name of the assignment stands for, if it stands for coordinator slots. */
    public static Optional<CoordinatorSlots> of(String topic) {
        for (CoordinatorSlots k : values()) {
            if (k.name.equals(topic)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }

    /** What a broker does when it gains or loses a coordinator slot (called on {@code kaas-cluster}). */
    public interface Listener {
        /** This broker holds {@code slot} in coordinator epoch {@code epoch}: load its state before serving it. */
        void gained(CoordinatorSlots kind, int slot, int epoch);

        /** This broker no longer acts for {@code slot}: return once nothing more of it can be written here. */
        void lost(CoordinatorSlots kind, int slot);
    }

    /** Each kind's slot count, as the controller's rebalance takes them (one rebalance per kind). */
    static Map<String, Integer> counts(CoordinatorSlots kind) {
        return Map.of(kind.name, kind.slots);
    }
}
