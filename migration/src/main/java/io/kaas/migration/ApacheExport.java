package io.kaas.migration;

import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.GroupOffsetsFile.GroupOffsets;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

/**
 * {@code kaas export --data-dir DIR --to LOG_DIR}: a kaas data dir as an Apache Kafka 4.4 log dir that a single-node
 * KRaft broker+controller ({@code process.roles=broker,controller}) starts on without formatting. Reads and checks
 * everything first (every byte CRC-checked in place; damage, a torn tail and open transactions refuse, nothing
 * written), holding the data dir's {@code .lock} throughout, so no kaas broker runs on it meanwhile and the copy is
 * consistent; then formats the log dir with Apache's own Formatter ({@link KraftBootstrap}: topics, partitions,
 * configs and the producer-id floor as bootstrap records), writes the partitions ({@link PartitionExport}), the
 * groups' committed offsets ({@link ConsumerOffsetsLog}) and Apache's log-start and high-watermark checkpoints. kaas's
 * files are only read (closed segments may be hard-linked: Apache never writes a closed segment in place).
 */
public final class ApacheExport {
    private static final Map<String, String> OFFSETS_TOPIC_CONFIGS = Map.of(
            // What Apache's group coordinator gives __consumer_offsets when it creates it (offsets.topic.segment.bytes
            // default, compaction, the producer's compression).
            "cleanup.policy", "compact",
            "compression.type", "producer",
            "segment.bytes", "104857600");

    /** What the run did. */
    public record Summary(
            int topics,
            int partitions,
            long bytes,
            int groups,
            int groupOffsets,
            String clusterId,
            String directoryId) {}

    private final ExportOptions options;
    private final ExportListener listener;

    public ApacheExport(ExportOptions options, ExportListener listener) {
        this.options = options;
        this.listener = listener;
    }

    public Summary run(Path dataDir, Path logDir) {
        PartitionFinder.find(dataDir); // names the path when it holds no kaas data at all
        Path data = dataDir.toAbsolutePath().normalize();
        Path out = logDir.toAbsolutePath().normalize();
        if (out.startsWith(data) || data.startsWith(out)) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    logDir + ": inside the data dir " + dataDir + " (or around it); choose another");
        }
        refuseNonEmpty(logDir);
        try (OwnerLock owner = OwnerLock.acquireDataDirIfOwned(dataDir)) {
            return export(dataDir, logDir);
        }
    }

    private Summary export(Path dataDir, Path logDir) {
        List<String> topicNames = topics(dataDir);
        List<PartitionExport.Source> sources = new ArrayList<>();
        List<KraftBootstrap.Topic> topics = new ArrayList<>();
        Map<String, UUID> ids = new HashMap<>();
        List<Path> partitionDirs = new ArrayList<>();
        for (String topic : topicNames) {
            Path topicDir = TopicDir.of(dataDir, topic);
            int count = partitionCount(topicDir);
            for (int p = 0; p < count; p++) {
                Path dir = TopicDir.partition(topicDir, p);
                if (PartitionSegments.isPartitionDir(dir)) {
                    partitionDirs.add(dir);
                }
            }
        }
        int index = 0;
        for (String topic : topicNames) {
            Path topicDir = TopicDir.of(dataDir, topic);
            int count = partitionCount(topicDir);
            int leaderEpoch = 0;
            for (int p = 0; p < count; p++) {
                Path dir = TopicDir.partition(topicDir, p);
                if (!PartitionSegments.isPartitionDir(dir)) {
                    continue; // never written: Apache's leader creates the empty log
                }
                listener.partitionStarted(
                        ApacheNames.partitionDir(topic, p), index++, partitionDirs.size(), dirBytes(dir));
                PartitionExport.Source s = PartitionExport.check(topic, p, dir);
                sources.add(s);
                leaderEpoch = Math.max(leaderEpoch, s.leaderEpoch());
            }
            UUID id = StateJson.read(topicDir.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                    .map(TopicIdentity::topicId)
                    .orElseGet(UUID::randomUUID);
            ids.put(topic, id);
            Map<String, String> configs = TopicConfigFile.readTopicDir(topicDir)
                    .map(c -> c.toKafkaConfigs())
                    .orElse(Map.of());
            topics.add(new KraftBootstrap.Topic(topic, id, count, configs, leaderEpoch));
        }
        List<GroupOffsets> groups =
                GroupOffsetsFile.readAll(ClusterDir.consumerOffsets(ClusterDir.of(dataDir)), g -> true);
        refusePendingOffsets(groups);
        Map<Integer, List<GroupOffsets>> byPartition =
                ConsumerOffsetsLog.byPartition(groups, options.offsetsPartitions());
        UUID offsetsTopicId = UUID.randomUUID();
        if (!byPartition.isEmpty()) {
            topics.add(new KraftBootstrap.Topic(
                    ApacheNames.CONSUMER_OFFSETS,
                    offsetsTopicId,
                    options.offsetsPartitions(),
                    OFFSETS_TOPIC_CONFIGS,
                    0));
        }
        long nextProducerId = StateJson.read(
                        ClusterDir.producerIds(ClusterDir.of(dataDir)).resolve(ApacheImport.NEXT_PRODUCER_ID_BLOCK),
                        ApacheImport.NextBlock.class)
                .map(ApacheImport.NextBlock::nextBlockStart)
                .orElse(0L);

        String clusterId = options.clusterId() != null
                ? options.clusterId()
                : Uuid.randomUuid().toString();
        String directoryId = "none (dry run)";
        long bytes = 0;
        Map<TopicPartition, Long> logStarts = new TreeMap<>(ApacheExport::compare);
        Map<TopicPartition, Long> highWatermarks = new TreeMap<>(ApacheExport::compare);
        if (!options.dryRun()) {
            createDirectories(logDir);
            KraftBootstrap.Formatted f = KraftBootstrap.format(
                    logDir,
                    clusterId,
                    options.nodeId(),
                    options.controllerListener(),
                    options.controllerEndpoint(),
                    topics,
                    nextProducerId);
            directoryId = f.directoryId().toString();
        }
        for (PartitionExport.Source s : sources) {
            PartitionExport.Result r = options.dryRun()
                    ? PartitionExport.dryRun(s)
                    : PartitionExport.run(s, logDir, ids.get(s.topic()), options.copy());
            TopicPartition tp = new TopicPartition(s.topic(), s.partition());
            logStarts.put(tp, r.logStartOffset());
            highWatermarks.put(tp, r.logEndOffset());
            bytes += r.bytes();
            listener.partitionDone(new ExportListener.PartitionOutcome(
                    r.topic(),
                    r.partition(),
                    logDir.resolve(ApacheNames.partitionDir(r.topic(), r.partition()))
                            .toString(),
                    r.segments(),
                    r.bytes(),
                    r.transfer(),
                    r.logStartOffset(),
                    r.logEndOffset(),
                    r.leaderEpoch()));
        }
        int groupCount = 0;
        int offsetCount = 0;
        if (!options.dryRun()) {
            ConsumerOffsetsLog.Written w = ConsumerOffsetsLog.write(logDir, offsetsTopicId, byPartition, ids);
            w.logEnds().forEach((p, end) -> {
                TopicPartition tp = new TopicPartition(ApacheNames.CONSUMER_OFFSETS, p);
                logStarts.put(tp, 0L);
                highWatermarks.put(tp, end);
            });
            writeCheckpoint(logDir.resolve(ApacheNames.LOG_START_CHECKPOINT), logStarts);
            writeCheckpoint(logDir.resolve(ApacheNames.HIGH_WATERMARK_CHECKPOINT), highWatermarks);
        }
        for (Map.Entry<Integer, List<GroupOffsets>> e : byPartition.entrySet()) {
            for (GroupOffsets g : e.getValue()) {
                groupCount++;
                offsetCount += g.offsets().size();
                listener.groupDone(g.groupId(), g.offsets().size(), e.getKey());
            }
        }
        return new Summary(topicNames.size(), sources.size(), bytes, groupCount, offsetCount, clusterId, directoryId);
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }

    /** The data dir's topics, by name: every legal topic directory not being deleted. */
    private static List<String> topics(Path dataDir) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir, Files::isDirectory)) {
            for (Path d : ds) {
                String name = d.getFileName().toString();
                if (TopicName.isLegal(name) && !TopicDir.isMarkedDeleted(d)) {
                    out.add(name);
                }
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dataDir + ": cannot list: " + e.getMessage(), e);
        }
        out.sort(null);
        return out;
    }

    private static int partitionCount(Path topicDir) {
        try {
            return TopicDir.partitionCount(topicDir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, topicDir + ": cannot list: " + e.getMessage(), e);
        }
    }

    private static long dirBytes(Path partitionDir) {
        long n = 0;
        for (var s : PartitionSegments.list(partitionDir)) {
            try {
                n += Files.size(s.log());
            } catch (IOException e) {
                throw new StorageException(StorageException.Kind.IO, s.log() + ": cannot read: " + e.getMessage(), e);
            }
        }
        return n;
    }

    /** A group's offsets staged by a transaction still open: Apache would have no coordinator state to end it. */
    private static void refusePendingOffsets(List<GroupOffsets> groups) {
        List<String> open = groups.stream()
                .filter(g -> !g.pending().isEmpty())
                .map(GroupOffsets::groupId)
                .toList();
        if (!open.isEmpty()) {
            throw new OpenTransactionsException("group(s) " + open
                    + " have offsets staged by a transaction still open; let it end on kaas, stop it, and export again;"
                    + " nothing was written");
        }
    }

    private static void refuseNonEmpty(Path logDir) {
        if (!Files.exists(logDir)) {
            return;
        }
        if (!Files.isDirectory(logDir)) {
            throw new StorageException(StorageException.Kind.IO, logDir + ": not a directory");
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir)) {
            if (ds.iterator().hasNext()) {
                throw new StorageException(
                        StorageException.Kind.IO, logDir + ": not empty; export writes a new log dir only");
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, logDir + ": cannot list: " + e.getMessage(), e);
        }
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create: " + e.getMessage(), e);
        }
    }

    /** One of Apache's log-dir checkpoint files (OffsetCheckpointFile: version, count, then topic partition offset). */
    private static void writeCheckpoint(Path file, Map<TopicPartition, Long> offsets) {
        try {
            new OffsetCheckpointFile(file.toFile(), new LogDirFailureChannel(1)).write(offsets);
        } catch (IOException | RuntimeException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot write: " + e.getMessage(), e);
        }
    }
}
