package io.kaas.migration;

import io.kaas.storage.io.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.ProducerIdsRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.raft.DynamicVoters;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * The KRaft side of an exported log dir, written by Apache's own {@link Formatter} (what {@code kafka-storage
 * format --standalone} runs): {@code meta.properties} and {@code __cluster_metadata-0} with the standalone voter
 * set (KIP-853) and the bootstrap records. A controller whose metadata log is empty appends the bootstrap records as
 * its first metadata transaction and replays them like any other, so the topics (TopicRecord, PartitionRecord with
 * this node as the only replica, leader and ISR member, in this log dir), their configs (ConfigRecord) and the
 * producer-id floor (ProducerIdsRecord) go in beside the feature levels: no raft log is forged.
 */
final class KraftBootstrap {
    /** One topic as the controller is to know it. */
    record Topic(String name, UUID id, int partitions, Map<String, String> configs, int leaderEpoch) {}

    /** What the format wrote: the ids a broker on the dir must match. */
    record Formatted(String clusterId, Uuid directoryId) {}

    private KraftBootstrap() {}

    /**
     * Formats {@code logDir} as node {@code nodeId}, a broker and the single controller, whose controller listener
     * ({@code controller.listener.names}, first entry) is at {@code controllerEndpoint} ({@code host:port}).
     */
    static Formatted format(
            Path logDir,
            String clusterId,
            int nodeId,
            String controllerListener,
            String controllerEndpoint,
            List<Topic> topics,
            long nextProducerId) {
        Uuid directoryId = Uuid.randomUuid();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            new Formatter()
                    .setPrintStream(print)
                    .setNodeId(nodeId)
                    .setClusterId(clusterId)
                    .setWriteBootstrapSnapshot(true)
                    .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                    .setReleaseVersion(MetadataVersion.latestProduction())
                    .setControllerListenerName(controllerListener)
                    .setMetadataLogDirectory(logDir.toString())
                    .addDirectory(logDir.toString())
                    .setHasDynamicQuorum(true)
                    .setInitialControllers(DynamicVoters.parse(nodeId + "@" + controllerEndpoint + ":" + directoryId))
                    .setAdditionalBootstrapRecords(records(nodeId, directoryId, topics, nextProducerId))
                    .run();
        } catch (Exception e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    logDir + ": Apache's format failed: " + e.getMessage() + " "
                            + printed.toString(StandardCharsets.UTF_8).trim(),
                    e);
        }
        Uuid written = readDirectoryId(logDir);
        if (!written.equals(directoryId)) {
            throw new IllegalStateException(logDir + ": format wrote directory.id " + written + ", not " + directoryId);
        }
        return new Formatted(clusterId, directoryId);
    }

    static List<ApiMessageAndVersion> records(int nodeId, Uuid directoryId, List<Topic> topics, long nextProducerId) {
        List<ApiMessageAndVersion> out = new ArrayList<>();
        for (Topic t : topics) {
            Uuid id = new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits());
            out.add(new ApiMessageAndVersion(new TopicRecord().setName(t.name()).setTopicId(id), (short) 0));
            for (int p = 0; p < t.partitions(); p++) {
                out.add(new ApiMessageAndVersion(
                        new PartitionRecord()
                                .setTopicId(id)
                                .setPartitionId(p)
                                .setReplicas(List.of(nodeId))
                                .setIsr(List.of(nodeId))
                                .setRemovingReplicas(List.of())
                                .setAddingReplicas(List.of())
                                .setLeader(nodeId)
                                .setLeaderEpoch(t.leaderEpoch())
                                .setPartitionEpoch(0)
                                .setDirectories(List.of(directoryId)),
                        MetadataVersion.latestProduction().partitionRecordVersion()));
            }
            t.configs()
                    .forEach((name, value) -> out.add(new ApiMessageAndVersion(
                            new ConfigRecord()
                                    .setResourceType(ConfigResource.Type.TOPIC.id())
                                    .setResourceName(t.name())
                                    .setName(name)
                                    .setValue(value),
                            (short) 0)));
        }
        if (nextProducerId > 0) {
            out.add(new ApiMessageAndVersion(
                    new ProducerIdsRecord()
                            .setBrokerId(nodeId)
                            .setBrokerEpoch(0)
                            .setNextProducerId(nextProducerId),
                    (short) 0));
        }
        return out;
    }

    private static Uuid readDirectoryId(Path logDir) {
        try {
            MetaProperties meta = new MetaProperties.Builder(PropertiesUtils.readPropertiesFile(
                            logDir.resolve(ApacheNames.META_PROPERTIES).toString()))
                    .build();
            return meta.directoryId().orElseThrow();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, logDir + ": cannot read meta.properties: " + e.getMessage(), e);
        }
    }
}
