package io.kaas.migration;

import io.kaas.migration.ApacheLogDir.ApachePartition;
import io.kaas.migration.ImportListener.PartitionOutcome;
import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.TopicDir;
import io.kaas.storage.layout.TopicName;
import io.kaas.storage.recovery.RecoveryScan;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

/**
 * {@code kaas import LOG_DIR --data-dir DIR}: reads the whole Apache log dir first (metadata, transactions, group
 * offsets; refusing a running broker's dir, open transactions it may not end, and a topic the data dir already
 * holds), then imports each partition ({@link PartitionImport}), then the topics' ids and configs, the groups'
 * offset files and the producer-id floor. Apache's files are only read.
 */
public final class ApacheImport {
    static final String NEXT_PRODUCER_ID_BLOCK = "next-block.json";

    /** What the run did. */
    public record Summary(
            int topics, int partitions, long bytes, int groups, int groupOffsets, int markers, long nextProducerId) {}

    /** The broker's producer-id floor file ({@code __cluster/producer_ids/next-block.json}). */
    record NextBlock(long nextBlockStart) {}

    private final ImportOptions options;
    private final ImportListener listener;

    public ApacheImport(ImportOptions options, ImportListener listener) {
        this.options = options;
        this.listener = listener;
    }

    public Summary run(Path logDir, Path dataDir) {
        ApacheLogDir apache = ApacheLogDir.open(logDir);
        if (dataDir.toAbsolutePath()
                .normalize()
                .startsWith(logDir.toAbsolutePath().normalize())) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    dataDir + ": inside the Apache log dir " + logDir + "; choose another data dir");
        }
        try (OwnerLock owner = Files.isDirectory(dataDir) && !options.dryRun()
                ? OwnerLock.acquireDataDirIfOwned(dataDir)
                : OwnerLock.none()) {
            return importInto(apache, dataDir);
        }
    }

    private Summary importInto(ApacheLogDir apache, Path dataDir) {
        ClusterMetadata metadata =
                ClusterMetadata.read(apache.root().resolve(ApacheNames.partitionDir(ApacheNames.CLUSTER_METADATA, 0)));
        TransactionStates txns = TransactionStates.read(dirs(apache.partitionsOf(ApacheNames.TRANSACTION_STATE)));
        refuseOpenTransactions(txns);
        CommittedGroupOffsets groups =
                CommittedGroupOffsets.read(dirs(apache.partitionsOf(ApacheNames.CONSUMER_OFFSETS)));
        List<ApachePartition> partitions = apache.userPartitions();
        TreeSet<String> topics = new TreeSet<>();
        for (ApachePartition p : partitions) {
            if (!TopicName.isLegal(p.topic())) {
                throw new StorageException(
                        StorageException.Kind.IO, p.dir() + ": topic name not allowed in kaas (" + p.topic() + ")");
            }
            if (topics.add(p.topic()) && Files.exists(TopicDir.of(dataDir, p.topic()))) {
                throw new StorageException(
                        StorageException.Kind.IO,
                        TopicDir.of(dataDir, p.topic()) + ": the data dir already holds topic " + p.topic()
                                + "; nothing was written");
            }
        }
        Map<TopicPartition, Long> logStarts = readLogStarts(apache.root());
        long bytes = 0;
        int markers = 0;
        long maxProducerId = Math.max(metadata.nextProducerId() - 1, txns.maxProducerId());
        for (int i = 0; i < partitions.size(); i++) {
            ApachePartition p = partitions.get(i);
            long size = PartitionImport.segments(p).stream()
                    .mapToLong(ApacheImport::size)
                    .sum();
            listener.partitionStarted(p.name(), i, partitions.size(), size);
            Path target = TopicDir.partition(dataDir, p.topic(), p.partition());
            PartitionOutcome outcome;
            if (options.dryRun()) {
                RecoveryScan.RecoveredState checked = PartitionImport.check(p);
                outcome = new PartitionOutcome(
                        p.topic(),
                        p.partition(),
                        target.toString(),
                        PartitionImport.segments(p).size(),
                        size,
                        "none (dry run)",
                        checked.outcome().logStartOffset(),
                        checked.outcome().logEndOffset(),
                        checked.producers().producerCount(),
                        List.of());
                maxProducerId = Math.max(maxProducerId, maxProducer(checked));
            } else {
                long logStart = logStarts.getOrDefault(new TopicPartition(p.topic(), p.partition()), 0L);
                PartitionImport.Result r = PartitionImport.run(
                        p,
                        target,
                        epochs(p),
                        logStart,
                        options.copy(),
                        (part, producerId) -> markerFor(txns, part, producerId));
                outcome = new PartitionOutcome(
                        r.topic(),
                        r.partition(),
                        target.toString(),
                        r.segments(),
                        r.bytes(),
                        r.transfer(),
                        r.logStartOffset(),
                        r.logEndOffset(),
                        r.producers(),
                        r.markers());
                markers += r.markers().size();
                maxProducerId =
                        Math.max(maxProducerId, maxProducer(RecoveryScan.recoverState(target, dryRunOptions())));
            }
            bytes += size;
            listener.partitionDone(outcome);
        }
        if (!options.dryRun()) {
            for (String topic : topics) {
                writeTopicFiles(dataDir, topic, topicId(apache, topic, metadata), metadata.topic(topic));
            }
        }
        for (Map.Entry<String, List<GroupOffsetsFile.Committed>> g :
                groups.byGroup().entrySet()) {
            if (!options.dryRun()) {
                Path dir = ClusterDir.consumerOffsets(ClusterDir.of(dataDir));
                createDirectories(dir);
                StateJson.write(
                        dir.resolve(GroupOffsetsFile.fileName(g.getKey())),
                        new GroupOffsetsFile.GroupOffsets(g.getKey(), g.getValue(), List.of()));
            }
            listener.groupDone(g.getKey(), g.getValue().size());
        }
        long nextProducerId = maxProducerId + 1;
        if (!options.dryRun()) {
            Path dir = ClusterDir.producerIds(ClusterDir.of(dataDir));
            createDirectories(dir);
            long existing = StateJson.read(dir.resolve(NEXT_PRODUCER_ID_BLOCK), NextBlock.class)
                    .map(NextBlock::nextBlockStart)
                    .orElse(0L);
            StateJson.write(dir.resolve(NEXT_PRODUCER_ID_BLOCK), new NextBlock(Math.max(existing, nextProducerId)));
        }
        return new Summary(
                topics.size(),
                partitions.size(),
                bytes,
                groups.byGroup().size(),
                groups.offsetCount(),
                markers,
                nextProducerId);
    }

    private static io.kaas.storage.recovery.RecoveryOptions dryRunOptions() {
        return new io.kaas.storage.recovery.RecoveryOptions(
                true,
                io.kaas.storage.recovery.RecoveryOptions.DamagePolicy.REFUSE,
                new io.kaas.storage.segment.IndexPolicy(io.kaas.storage.segment.IndexPolicy.DEFAULT_INTERVAL_BYTES),
                true,
                0,
                false);
    }

    private static long maxProducer(RecoveryScan.RecoveredState state) {
        return state.producers().snapshot().entries().stream()
                .mapToLong(e -> e.producerId())
                .max()
                .orElse(-1);
    }

    private void refuseOpenTransactions(TransactionStates txns) {
        List<String> undecided = txns.open().stream()
                .filter(t -> !t.decidedCommit())
                .map(t -> t.transactionalId() + " (producer " + t.producerId() + ", " + t.state() + ", "
                        + t.partitions() + ")")
                .toList();
        if (!undecided.isEmpty() && !options.abortOpenTransactions()) {
            throw new OpenTransactionsException(
                    "Apache left " + undecided.size() + " transaction(s) open: "
                            + String.join(", ", undecided)
                            + "; rerun with --abort-open-transactions to end them with ABORT markers (their records are then never"
                            + " visible to read_committed consumers, as Apache's coordinator would abort them at its timeout); nothing was written");
        }
    }

    private ControlRecordType markerFor(TransactionStates txns, ApachePartition p, long producerId) {
        Optional<TransactionStates.Txn> txn = txns.openOf(producerId);
        if (txn.isPresent() && txn.get().decidedCommit()) {
            return ControlRecordType.COMMIT;
        }
        if (options.abortOpenTransactions()) {
            return ControlRecordType.ABORT;
        }
        throw new OpenTransactionsException(p.dir() + ": producer " + producerId
                + " has a transaction open here that __transaction_state does not show as open; rerun with"
                + " --abort-open-transactions to end it with an ABORT marker");
    }

    private static List<Path> dirs(List<ApachePartition> ps) {
        return ps.stream().map(ApachePartition::dir).toList();
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static void createDirectories(Path dir) {
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create: " + e.getMessage(), e);
        }
    }

    private static Map<TopicPartition, Long> readLogStarts(Path root) {
        File file = root.resolve(ApacheNames.LOG_START_CHECKPOINT).toFile();
        if (!file.isFile()) {
            return Map.of();
        }
        try {
            return new OffsetCheckpointFile(file, new LogDirFailureChannel(1)).read();
        } catch (IOException | RuntimeException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static List<EpochEntry> epochs(ApachePartition p) {
        File file = LeaderEpochCheckpointFile.newFile(p.dir().toFile());
        if (!file.isFile()) {
            return List.of();
        }
        try {
            List<EpochEntry> out =
                    new ArrayList<>(new LeaderEpochCheckpointFile(file, new LogDirFailureChannel(1)).read());
            out.sort(java.util.Comparator.comparingLong(e -> e.startOffset()));
            return out;
        } catch (IOException | RuntimeException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** The topic id as the partitions' {@code partition.metadata} records it, else the metadata log's, else a new one. */
    private static UUID topicId(ApacheLogDir apache, String topic, ClusterMetadata metadata) {
        for (ApachePartition p : apache.partitionsOf(topic)) {
            File file = PartitionMetadataFile.newFile(p.dir().toFile());
            if (file.isFile()) {
                Uuid id = new PartitionMetadataFile(file, new LogDirFailureChannel(1))
                        .read()
                        .topicId();
                return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
            }
        }
        return metadata.topic(topic).map(ClusterMetadata.Topic::id).orElseGet(UUID::randomUUID);
    }

    private static void writeTopicFiles(Path dataDir, String topic, UUID id, Optional<ClusterMetadata.Topic> meta) {
        Path dir = TopicDir.of(dataDir, topic);
        StateJson.write(dir.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(id));
        Map<String, String> configs = meta.map(ClusterMetadata.Topic::configs).orElse(new TreeMap<>());
        if (!configs.isEmpty()) {
            TopicConfig config = TopicConfigs.of(configs);
            StateJson.write(dir.resolve(TopicConfig.FILE_NAME), config);
        }
    }
}
