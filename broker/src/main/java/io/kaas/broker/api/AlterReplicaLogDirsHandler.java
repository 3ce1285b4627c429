package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.layout.LogDir;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData.AlterReplicaLogDirPartitionResult;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData.AlterReplicaLogDirTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterReplicaLogDirs (KIP-113), what {@code Admin.alterReplicaLogDirs} and Apache's {@code kafka-reassign-partitions}
 * with {@code log_dirs} send: moves each named partition to the named dir of this broker's pool, while it is served.
 * As Apache's broker, the answer comes once the move is under way (DescribeLogDirs shows the copy as the future
 * replica until it is done); a partition already in that dir is a success with nothing to do. A dir is named by its
 * path, as Apache clients send it; one not in the pool is LOG_DIR_NOT_FOUND, an unknown partition
 * UNKNOWN_TOPIC_OR_PARTITION, a partition whose storage failed KAFKA_STORAGE_ERROR. ALTER on the cluster is needed
 * (else every partition is CLUSTER_AUTHORIZATION_FAILED), as in Apache.
 */
public final class AlterReplicaLogDirsHandler implements ApiHandler<AlterReplicaLogDirsRequestData> {
    private static final Logger LOG = LoggerFactory.getLogger(AlterReplicaLogDirsHandler.class);

    private final TopicCatalog topics;

    public AlterReplicaLogDirsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterReplicaLogDirsRequestData request) {
        boolean allowed = ctx.allowedOnCluster(AclOperation.ALTER);
        StorageEngine engine = topics.engine();
        Map<String, AlterReplicaLogDirTopicResult> results = new LinkedHashMap<>();
        for (AlterReplicaLogDirsRequestData.AlterReplicaLogDir d : request.dirs()) {
            Optional<LogDir> dir = allowed ? dirAt(engine, d.path()) : Optional.empty();
            for (AlterReplicaLogDirsRequestData.AlterReplicaLogDirTopic t : d.topics()) {
                AlterReplicaLogDirTopicResult r =
                        results.computeIfAbsent(t.name(), n -> new AlterReplicaLogDirTopicResult().setTopicName(n));
                for (int p : t.partitions()) {
                    Errors e = !allowed
                            ? Errors.CLUSTER_AUTHORIZATION_FAILED
                            : move(engine, new TopicPartition(t.name(), p), dir);
                    r.partitions()
                            .add(new AlterReplicaLogDirPartitionResult()
                                    .setPartitionIndex(p)
                                    .setErrorCode(e.code()));
                }
            }
        }
        AlterReplicaLogDirsResponseData response = new AlterReplicaLogDirsResponseData();
        response.results().addAll(results.values());
        return CompletableFuture.completedFuture(response);
    }

    private Errors move(StorageEngine engine, TopicPartition tp, Optional<LogDir> dir) {
        Optional<TopicInfo> topic = topics.topic(tp.topic());
        if (!TopicCatalog.hasPartition(topic, tp.partition())) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (dir.isEmpty()) {
            return Errors.LOG_DIR_NOT_FOUND;
        }
        try {
            engine.moveToLogDir(tp, dir.get()).whenComplete((v, t) -> {
                if (t != null) {
                    LOG.warn(
                            "{}: move to log dir {} did not happen: {}",
                            tp,
                            dir.get().path(),
                            t.getMessage());
                }
            });
            return Errors.NONE;
        } catch (RuntimeException e) {
            return ErrorMapping.toKafka(e);
        }
    }

    /** The dir of the pool at {@code path} (absolute, as Apache clients send it). */
    private static Optional<LogDir> dirAt(StorageEngine engine, String path) {
        if (path == null || path.isEmpty()) {
            return Optional.empty();
        }
        Path wanted;
        try {
            wanted = Path.of(path).toAbsolutePath().normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
        return engine.logDirs().stream()
                .filter(d -> d.path().toAbsolutePath().normalize().equals(wanted))
                .findFirst();
    }
}
