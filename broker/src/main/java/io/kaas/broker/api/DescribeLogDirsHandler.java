package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.layout.LogDir;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeLogDirs: every dir of the engine's pool ({@code log.dirs}, KIP-112), each with the partitions it holds,
 * their sizes in bytes (from memory, no file opened), lag 0 (no replicas), and the total and usable bytes of its file
 * store (v4, KIP-827; -1 when the store cannot say). A partition being moved to another dir (AlterReplicaLogDirs,
 * KIP-113) is also listed there as its future replica ({@code isFutureKey=true}): the copy's size so far and the
 * offsets it still lacks, as {@code kafka-log-dirs --describe} prints them. An offline dir answers
 * KAFKA_STORAGE_ERROR and nothing else, as Apache's does.
 */
public final class DescribeLogDirsHandler implements ApiHandler<DescribeLogDirsRequestData> {
    private final TopicCatalog topics;

    public DescribeLogDirsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeLogDirsRequestData request) {
        StorageEngine engine = topics.engine();
        Map<LogDir, DescribeLogDirsResult> results = new LinkedHashMap<>();
        Map<LogDir, String> offline = engine.offlineLogDirs();
        for (LogDir d : engine.logDirs()) {
            results.put(
                    d,
                    offline.containsKey(d)
                            ? new DescribeLogDirsResult()
                                    .setLogDir(d.path().toAbsolutePath().toString())
                                    .setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
                                    .setTotalBytes(-1)
                                    .setUsableBytes(-1)
                            : describe(d));
        }
        for (DescribeLogDirsRequestData.DescribableLogDirTopic w : wanted(request)) {
            Optional<TopicInfo> t = topics.topic(w.topic());
            if (t.isEmpty()) {
                continue;
            }
            Map<LogDir, DescribeLogDirsTopic> perDir = new LinkedHashMap<>();
            for (int p : w.partitions()) {
                if (p < 0 || p >= t.get().partitions()) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(w.topic(), p);
                if (engine.inOfflineLogDir(tp)) {
                    continue;
                }
                long size = engine.partitionState(tp).sizeInBytes(); // opens it: placed, if it was nowhere yet
                Optional<LogDir> dir = engine.logDirOf(tp).filter(results::containsKey);
                if (dir.isEmpty()) {
                    continue;
                }
                perDir.computeIfAbsent(dir.get(), d -> new DescribeLogDirsTopic().setName(w.topic()))
                        .partitions()
                        .add(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                                .setPartitionIndex(p)
                                .setPartitionSize(size)
                                .setOffsetLag(0)
                                .setIsFutureKey(false));
                engine.futureReplica(tp)
                        .filter(f -> results.containsKey(f.dir()))
                        .ifPresent(f -> perDir.computeIfAbsent(
                                        f.dir(), d -> new DescribeLogDirsTopic().setName(w.topic()))
                                .partitions()
                                .add(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                                        .setPartitionIndex(p)
                                        .setPartitionSize(f.sizeInBytes())
                                        .setOffsetLag(f.offsetLag())
                                        .setIsFutureKey(true)));
            }
            perDir.forEach((d, topic) -> results.get(d).topics().add(topic));
        }
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData();
        response.results().addAll(results.values());
        return CompletableFuture.completedFuture(response);
    }

    private static DescribeLogDirsResult describe(LogDir d) {
        DescribeLogDirsResult dir =
                new DescribeLogDirsResult().setLogDir(d.path().toAbsolutePath().toString());
        try {
            FileStore store = Files.getFileStore(d.path());
            dir.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
        } catch (IOException | RuntimeException e) {
            dir.setTotalBytes(-1).setUsableBytes(-1);
        }
        return dir;
    }

    /** The partitions asked about; all of every topic when the request's topics are null. */
    private List<DescribeLogDirsRequestData.DescribableLogDirTopic> wanted(DescribeLogDirsRequestData request) {
        if (request.topics() != null) {
            return new ArrayList<>(request.topics());
        }
        List<DescribeLogDirsRequestData.DescribableLogDirTopic> all = new ArrayList<>();
        for (TopicInfo t : topics.topics()) {
            List<Integer> partitions = new ArrayList<>();
            for (int p = 0; p < t.partitions(); p++) {
                partitions.add(p);
            }
            all.add(new DescribeLogDirsRequestData.DescribableLogDirTopic()
                    .setTopic(t.name())
                    .setPartitions(partitions));
        }
        return all;
    }
}
