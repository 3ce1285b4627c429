package io.kaas.broker.group.streams;

import io.kaas.storage.TopicInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;

/**
 * The broker's topics now, as Apache's streams classes read them ({@link CoordinatorMetadataImage}): names, ids and
 * partition counts; no racks (one copy of each partition). An immutable snapshot taken per heartbeat.
 */
final class TopicImage implements CoordinatorMetadataImage {
    private record Topic(String name, Uuid id, int partitionCount) implements CoordinatorMetadataImage.TopicMetadata {
        @Override
        public List<String> partitionRacks(int partition) {
            return List.of();
        }
    }

    private final Map<String, Topic> byName = new HashMap<>();
    private final Map<Uuid, Topic> byId = new HashMap<>();

    TopicImage(Map<String, TopicInfo> topics) {
        topics.values().forEach(t -> {
            Topic topic = new Topic(t.name(), uuid(t.topicId()), t.partitions());
            byName.put(topic.name(), topic);
            byId.put(topic.id(), topic);
        });
    }

    static Uuid uuid(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /**
     * What a configured topology depends on: each named topic's id and partition count ("" when absent). The
     * topology is configured again when it changes (Apache compares a hash of the same facts).
     */
    Map<String, String> fingerprint(Set<String> names) {
        Map<String, String> out = new TreeMap<>();
        names.forEach(n -> {
            Topic t = byName.get(n);
            out.put(n, t == null ? "" : t.id() + ":" + t.partitionCount());
        });
        return out;
    }

    @Override
    public Set<Uuid> topicIds() {
        return Set.copyOf(byId.keySet());
    }

    @Override
    public Set<String> topicNames() {
        return Set.copyOf(byName.keySet());
    }

    @Override
    public Optional<TopicMetadata> topicMetadata(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    @Override
    public Optional<TopicMetadata> topicMetadata(Uuid id) {
        return Optional.ofNullable(byId.get(id));
    }

    @Override
    public CoordinatorMetadataDelta emptyDelta() {
        throw new UnsupportedOperationException("kaas takes a new image per heartbeat; there are no deltas");
    }

    @Override
    public long version() {
        return 0;
    }

    @Override
    public boolean isEmpty() {
        return byName.isEmpty();
    }
}
