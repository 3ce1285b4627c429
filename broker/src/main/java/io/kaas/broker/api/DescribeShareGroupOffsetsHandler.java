package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.share.ShareGroupOffsets;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeShareGroupOffsets (KIP-932): each share partition's start offset and (v1) lag; null topics
 * mean every partition the group has state for. A partition the group never read has -1 for both.
 */
public final class DescribeShareGroupOffsetsHandler implements ApiHandler<DescribeShareGroupOffsetsRequestData> {
    private final ShareGroupOffsets offsets;
    private final TopicCatalog topics;

    public DescribeShareGroupOffsetsHandler(ShareGroupOffsets offsets, TopicCatalog topics) {
        this.offsets = offsets;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeShareGroupOffsetsRequestData request) {
        DescribeShareGroupOffsetsResponseData out = new DescribeShareGroupOffsetsResponseData();
        for (DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup g : request.groups()) {
            DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup rg =
                    new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                            .setGroupId(g.groupId());
            out.groups().add(rg);
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId())) {
                rg.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                        .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message());
                continue;
            }
            Map<String, List<Integer>> wanted = new TreeMap<>();
            if (g.topics() == null) {
                offsets.partitions(g.groupId())
                        .keySet()
                        .forEach(tp -> wanted.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                                .add(tp.partition()));
                wanted.replaceAll((t, ps) -> List.copyOf(new TreeSet<>(ps)));
            } else {
                g.topics().forEach(t -> wanted.put(t.topicName(), t.partitions()));
            }
            wanted.forEach((name, partitions) -> {
                Optional<TopicInfo> topic = topics.topic(name)
                        .filter(t -> ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name()));
                DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic rt =
                        new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                                .setTopicName(name)
                                .setTopicId(topic.map(t -> new Uuid(
                                                t.topicId().getMostSignificantBits(),
                                                t.topicId().getLeastSignificantBits()))
                                        .orElse(Uuid.ZERO_UUID));
                rg.topics().add(rt);
                for (int p : partitions) {
                    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition rp =
                            new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
                                    .setPartitionIndex(p)
                                    .setLeaderEpoch(-1);
                    if (topic.isEmpty() || p < 0 || p >= topic.get().partitions()) {
                        rp.setStartOffset(-1)
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                    } else {
                        ShareGroupOffsets.Described d = offsets.describe(g.groupId(), topic.get(), p);
                        rp.setStartOffset(d.startOffset()).setLag(d.lag());
                    }
                    rt.partitions().add(rp);
                }
            });
        }
        return CompletableFuture.completedFuture(out);
    }
}
