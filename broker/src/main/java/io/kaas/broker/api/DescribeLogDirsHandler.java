package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** DescribeLogDirs: the one data directory, each partition's size in bytes (from memory, no file opened), lag 0 (no replicas). */
public final class DescribeLogDirsHandler implements ApiHandler<DescribeLogDirsRequestData> {
    private final TopicCatalog topics;

    public DescribeLogDirsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeLogDirsRequestData request) {
        DescribeLogDirsResponseData.DescribeLogDirsResult dir = new DescribeLogDirsResponseData.DescribeLogDirsResult()
                .setLogDir(topics.engine().dataDir().toAbsolutePath().toString());
        try {
            FileStore store = Files.getFileStore(topics.engine().dataDir());
            dir.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
        } catch (IOException | RuntimeException e) {
            dir.setTotalBytes(-1).setUsableBytes(-1);
        }
        List<DescribeLogDirsRequestData.DescribableLogDirTopic> wanted = new ArrayList<>();
        if (request.topics() == null) {
            for (TopicInfo t : topics.topics()) {
                List<Integer> all = new ArrayList<>();
                for (int p = 0; p < t.partitions(); p++) {
                    all.add(p);
                }
                wanted.add(new DescribeLogDirsRequestData.DescribableLogDirTopic()
                        .setTopic(t.name())
                        .setPartitions(all));
            }
        } else {
            wanted.addAll(request.topics());
        }
        for (DescribeLogDirsRequestData.DescribableLogDirTopic w : wanted) {
            Optional<TopicInfo> t = topics.topic(w.topic());
            if (t.isEmpty()) {
                continue;
            }
            DescribeLogDirsResponseData.DescribeLogDirsTopic out =
                    new DescribeLogDirsResponseData.DescribeLogDirsTopic().setName(w.topic());
            for (int p : w.partitions()) {
                if (p >= 0 && p < t.get().partitions()) {
                    long size = topics.engine()
                            .partitionState(new TopicPartition(w.topic(), p))
                            .sizeInBytes();
                    out.partitions()
                            .add(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                                    .setPartitionIndex(p)
                                    .setPartitionSize(size)
                                    .setOffsetLag(0)
                                    .setIsFutureKey(false));
                }
            }
            dir.topics().add(out);
        }
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData();
        response.results().add(dir);
        return CompletableFuture.completedFuture(response);
    }
}
