package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The offline tools' question when brokers share a directory: which of these partitions does a live broker
 * own? The answer is the lease in the coordination store, not the OS lock (NFS does not carry it reliably,
 * and a shared broker takes none).
 */
public final class LiveOwners {
    private LiveOwners() {}

    /** Of {@code partitions}, those the assignment gives to a broker whose lease holds, with that broker's id. */
    public static Map<TopicPartition, Integer> of(ClusterStore store, Collection<TopicPartition> partitions) {
        Map<Integer, BrokerRegistration> live = store.brokers();
        Assignment assignment = store.assignment().value();
        Map<TopicPartition, Integer> out = new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
        for (TopicPartition tp : partitions) {
            OptionalInt owner = assignment.owner(tp);
            if (owner.isPresent() && live.containsKey(owner.getAsInt())) {
                out.put(tp, owner.getAsInt());
            }
        }
        return out;
    }
}
