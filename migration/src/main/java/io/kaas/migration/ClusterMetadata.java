package io.kaas.migration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.ProducerIdsRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

/**
 * The topics of a KRaft metadata log ({@code __cluster_metadata-0}): the newest snapshot
 * ({@code <end offset>-<epoch>.checkpoint}), then the log's records from its end offset, each decoded with
 * Apache's {@link MetadataRecordSerde}. Replays TopicRecord, PartitionRecord, ConfigRecord (topic resources) and
 * RemoveTopicRecord, and ProducerIdsRecord (the first producer id the controller has not handed out); every other
 * record type is not about topics and is passed over.
 */
public record ClusterMetadata(Map<String, Topic> topics, long nextProducerId) {
    private static final Pattern SNAPSHOT = Pattern.compile("([0-9]{20})-([0-9]{10})\\.checkpoint");

    /** One topic as the controller last recorded it: id, partition count, the configs set on it. */
    public record Topic(String name, UUID id, int partitions, Map<String, String> configs) {
        public Topic {
            configs = Collections.unmodifiableMap(new TreeMap<>(configs));
        }
    }

    public ClusterMetadata {
        topics = Collections.unmodifiableMap(new TreeMap<>(topics));
    }

    public Optional<Topic> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    /** Replays {@code metadataDir} ({@code <logdir>/__cluster_metadata-0}); empty metadata when it does not exist. */
    public static ClusterMetadata read(Path metadataDir) {
        Replay replay = new Replay();
        if (!Files.isDirectory(metadataDir)) {
            return replay.result();
        }
        long from = 0;
        Optional<Path> snapshot = newestSnapshot(metadataDir);
        if (snapshot.isPresent()) {
            Matcher m = SNAPSHOT.matcher(snapshot.get().getFileName().toString());
            from = m.matches() ? Long.parseLong(m.group(1)) : 0;
            ApacheBatches.forEachInFile(snapshot.get(), (file, batch) -> replay.batch(batch, 0));
        }
        long start = from;
        ApacheBatches.forEach(metadataDir, (file, batch) -> replay.batch(batch, start));
        return replay.result();
    }

    private static Optional<Path> newestSnapshot(Path dir) {
        List<Path> snapshots = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.checkpoint")) {
            for (Path f : ds) {
                if (SNAPSHOT.matcher(f.getFileName().toString()).matches()) {
                    snapshots.add(f);
                }
            }
        } catch (IOException e) {
            throw new io.kaas.storage.io.StorageException(
                    io.kaas.storage.io.StorageException.Kind.IO, dir + ": cannot list: " + e.getMessage(), e);
        }
        snapshots.sort(null);
        return snapshots.isEmpty() ? Optional.empty() : Optional.of(snapshots.get(snapshots.size() - 1));
    }

    /** The replay's state: one instance per read. */
    private static final class Replay {
        private final Map<Uuid, String> names = new HashMap<>();
        private final Map<Uuid, Integer> partitionCounts = new HashMap<>();
        private final Map<String, Map<String, String>> configs = new HashMap<>();
        private long nextProducerId;

        void batch(org.apache.kafka.common.record.internal.RecordBatch batch, long fromOffset) {
            if (batch.isControlBatch() || batch.lastOffset() < fromOffset) {
                return;
            }
            for (Record r : batch) {
                if (r.offset() < fromOffset || !r.hasValue()) {
                    continue;
                }
                ByteBuffer value = r.value();
                ApiMessageAndVersion m =
                        MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(value), value.remaining());
                apply(m.message());
            }
        }

        void apply(ApiMessage message) {
            if (message instanceof TopicRecord t) {
                names.put(t.topicId(), t.name());
                partitionCounts.putIfAbsent(t.topicId(), 0);
            } else if (message instanceof PartitionRecord p) {
                partitionCounts.merge(p.topicId(), p.partitionId() + 1, Math::max);
            } else if (message instanceof ConfigRecord c && c.resourceType() == ConfigResource.Type.TOPIC.id()) {
                Map<String, String> m = configs.computeIfAbsent(c.resourceName(), k -> new TreeMap<>());
                if (c.value() == null) {
                    m.remove(c.name());
                } else {
                    m.put(c.name(), c.value());
                }
            } else if (message instanceof ProducerIdsRecord p) {
                nextProducerId = Math.max(nextProducerId, p.nextProducerId());
            } else if (message instanceof RemoveTopicRecord r) {
                String name = names.remove(r.topicId());
                partitionCounts.remove(r.topicId());
                if (name != null) {
                    configs.remove(name);
                }
            }
        }

        ClusterMetadata result() {
            Map<String, Topic> out = new TreeMap<>();
            names.forEach((id, name) -> out.put(
                    name,
                    new Topic(
                            name,
                            new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()),
                            partitionCounts.getOrDefault(id, 0),
                            configs.getOrDefault(name, Map.of()))));
            return new ClusterMetadata(out, nextProducerId);
        }
    }
}
