package io.kaas.inspect.data;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * What {@code kaas ls} shows of one partition, from state files and batch headers only (no segment is scanned
 * whole): see {@link #read}.
 *
 * @param topicId Kafka's base64 form of the topic id ({@code .topic-id.json}, Apache's {@code partition.metadata}),
 *     or null when none is recorded
 * @param configs the topic's configs that differ from the defaults (kaas's {@code .config.json}; an Apache log dir
 *     keeps them in its metadata log: none shown)
 * @param highWatermark as the state files record it (they lag by design), -1 when none does
 * @param oldestTimestamp the first batch's first timestamp, -1 when none
 * @param newestTimestamp the largest max timestamp of the last batches (from the last index entry on), -1 when none
 * @param lastWriteMs the newest modification time of a segment file
 * @param owned whether a running broker holds the partition (its owner lock)
 */
public record PartitionSummary(
        PartitionDir dir,
        String topicId,
        Map<String, String> configs,
        int segments,
        long logStartOffset,
        long logEndOffset,
        long highWatermark,
        long bytes,
        long oldestTimestamp,
        long newestTimestamp,
        long lastWriteMs,
        boolean owned,
        List<GroupLag> groups) {

    /** The summary of {@code p}; {@code committed} maps a group to its committed offset of this partition. */
    public static PartitionSummary read(PartitionDir p, ApacheCheckpoints apache, Map<String, Long> committed) {
        List<SegmentFile> segments = PartitionSegments.list(p.path());
        LogBounds bounds = LogBounds.read(p, segments, apache);
        long bytes = 0;
        long lastWrite = 0;
        for (SegmentFile s : segments) {
            try {
                bytes += Files.size(s.log());
                lastWrite =
                        Math.max(lastWrite, Files.getLastModifiedTime(s.log()).toMillis());
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, s.log() + ": cannot read: " + IoFailure.describe(e), e);
            }
        }
        long logEnd = bounds.logStartOffset();
        long newest = RecordBatchHeader.NO_TIMESTAMP;
        for (int i = segments.size() - 1; i >= 0; i--) {
            SegmentHeads.Tail tail = SegmentHeads.tail(segments.get(i));
            if (i == segments.size() - 1) {
                logEnd = Math.max(logEnd, tail.nextOffset());
            }
            if (!tail.empty()) {
                newest = tail.newestTimestamp();
                break;
            }
        }
        long oldest = RecordBatchHeader.NO_TIMESTAMP;
        for (SegmentFile s : segments) {
            oldest = SegmentHeads.oldestTimestamp(s);
            if (oldest != RecordBatchHeader.NO_TIMESTAMP) {
                break;
            }
        }
        long end = logEnd;
        List<GroupLag> groups = committed.entrySet().stream()
                .map(e -> new GroupLag(e.getKey(), e.getValue(), end - e.getValue()))
                .toList();
        return new PartitionSummary(
                p,
                topicId(p),
                p.apache() ? Map.of() : nonDefaultConfigs(p.path()),
                segments.size(),
                bounds.logStartOffset(),
                logEnd,
                bounds.highWatermark(),
                bytes,
                oldest,
                newest,
                lastWrite,
                OwnerLock.inUse(p.path()),
                groups);
    }

    private static String topicId(PartitionDir p) {
        if (p.apache()) {
            return ApacheCheckpoints.topicId(p.path());
        }
        return StateJson.read(p.path().getParent().resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                .map(t -> new Uuid(
                                t.topicId().getMostSignificantBits(),
                                t.topicId().getLeastSignificantBits())
                        .toString())
                .orElse(null);
    }

    /** The topic's configs by their Kafka names, less those set to the value the engine uses by default. */
    static Map<String, String> nonDefaultConfigs(Path partitionDir) {
        TopicConfig config =
                TopicConfigFile.readTopicDir(partitionDir.getParent()).orElse(TopicConfig.EMPTY);
        Map<String, String> defaults = Map.of(
                "retention.ms", Long.toString(TopicDefaults.DEFAULT_RETENTION_MS),
                "retention.bytes", Long.toString(TopicDefaults.DEFAULT_RETENTION_BYTES),
                "segment.bytes", Long.toString(TopicDefaults.DEFAULT_SEGMENT_BYTES),
                "segment.ms", Long.toString(TopicDefaults.DEFAULT_SEGMENT_MS),
                "cleanup.policy", TopicDefaults.DEFAULT_CLEANUP_POLICY,
                "min.compaction.lag.ms", Long.toString(TopicDefaults.DEFAULT_MIN_COMPACTION_LAG_MS),
                "delete.retention.ms", Long.toString(TopicDefaults.DEFAULT_DELETE_RETENTION_MS));
        Map<String, String> out = new LinkedHashMap<>();
        config.toKafkaConfigs().forEach((k, v) -> {
            if (!v.equals(defaults.get(k))) {
                out.put(k, v);
            }
        });
        return out;
    }
}
