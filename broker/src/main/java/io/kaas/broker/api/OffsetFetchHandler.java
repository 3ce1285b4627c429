package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.group.OffsetStore;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetFetch, one group (v1-7) or many (v8+); v10 names topics by id (KIP-848), resolved through the
 * topic catalog: an id no topic has answers UNKNOWN_TOPIC_ID for its partitions, and the all-offsets
 * answer leaves out committed topics that no longer exist. A partition
 * without a commit answers offset -1, as Kafka does; a null topic list means every committed partition.
 * With require_stable (v7+, KIP-447) a partition whose offset a transaction has staged answers
 * UNSTABLE_OFFSET_COMMIT (retriable) until that transaction ends.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequestData> {
    public static final int MAX_VERSION = 10;
    private static final short FIRST_BATCHED_VERSION = 8;
    private static final short FIRST_TOPIC_ID_VERSION = 10;

    private final GroupCoordinator groups;
    private final TopicCatalog topics;

    public OffsetFetchHandler(GroupCoordinator groups, TopicCatalog topics) {
        this.groups = groups;
        this.topics = topics;
    }

    private short stability(boolean requireStable, String groupId, GroupOffsetsFile.Committed c) {
        return requireStable && groups.hasPendingOffset(groupId, c.topic(), c.partition())
                ? Errors.UNSTABLE_OFFSET_COMMIT.code()
                : Errors.NONE.code();
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, OffsetFetchRequestData request) {
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (ctx.apiVersion() < FIRST_BATCHED_VERSION) {
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, request.groupId())) {
                return CompletableFuture.completedFuture(
                        response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
            }
            if (!groups.active(request.groupId())) {
                return CompletableFuture.completedFuture(response.setErrorCode(Errors.NOT_COORDINATOR.code()));
            }
            Map<String, List<Integer>> wanted = null;
            if (request.topics() != null) {
                wanted = new TreeMap<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopic t : request.topics()) {
                    wanted.put(t.name(), t.partitionIndexes());
                }
            }
            for (Map.Entry<String, List<GroupOffsetsFile.Committed>> e :
                    lookup(ctx, request.groupId(), wanted).entrySet()) {
                OffsetFetchResponseData.OffsetFetchResponseTopic tr =
                        new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(e.getKey());
                boolean topicDenied = !ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, e.getKey());
                for (GroupOffsetsFile.Committed c : e.getValue()) {
                    tr.partitions()
                            .add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                    .setPartitionIndex(c.partition())
                                    .setCommittedOffset(c.offset())
                                    .setCommittedLeaderEpoch(c.leaderEpoch())
                                    .setMetadata(c.metadata() == null ? "" : c.metadata())
                                    .setErrorCode(
                                            topicDenied
                                                    ? Errors.TOPIC_AUTHORIZATION_FAILED.code()
                                                    : stability(request.requireStable(), request.groupId(), c)));
                }
                response.topics().add(tr);
            }
            return CompletableFuture.completedFuture(response);
        }
        boolean byId = ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : request.groups()) {
            Map<String, List<Integer>> wanted = null;
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> unknownIds = new ArrayList<>();
            if (g.topics() != null) {
                wanted = new TreeMap<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                    String name = byId ? TopicIdLookup.name(topics, t.topicId()).orElse(null) : t.name();
                    if (name == null) {
                        unknownIds.add(unknownTopicId(t.topicId(), t.partitionIndexes()));
                    } else {
                        wanted.put(name, t.partitionIndexes());
                    }
                }
            }
            OffsetFetchResponseData.OffsetFetchResponseGroup gr =
                    new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(g.groupId());
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId())) {
                response.groups().add(gr.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            Errors member = groups.validateOffsetFetch(g.groupId(), g.memberId(), g.memberEpoch());
            if (member != Errors.NONE) {
                // KIP-848: a consumer-group member fetches with its current epoch (STALE_MEMBER_EPOCH /
                // UNKNOWN_MEMBER_ID).
                response.groups().add(gr.setErrorCode(member.code()));
                continue;
            }
            for (Map.Entry<String, List<GroupOffsetsFile.Committed>> e :
                    lookup(ctx, g.groupId(), wanted).entrySet()) {
                Uuid topicId = TopicIdLookup.id(topics, e.getKey());
                if (byId && topicId.equals(Uuid.ZERO_UUID)) {
                    continue; // a topic deleted since its commit has no id to answer with
                }
                OffsetFetchResponseData.OffsetFetchResponseTopics tr =
                        new OffsetFetchResponseData.OffsetFetchResponseTopics()
                                .setName(e.getKey())
                                .setTopicId(topicId);
                boolean topicDenied = !ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, e.getKey());
                for (GroupOffsetsFile.Committed c : e.getValue()) {
                    tr.partitions()
                            .add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                    .setPartitionIndex(c.partition())
                                    .setCommittedOffset(c.offset())
                                    .setCommittedLeaderEpoch(c.leaderEpoch())
                                    .setMetadata(c.metadata() == null ? "" : c.metadata())
                                    .setErrorCode(
                                            topicDenied
                                                    ? Errors.TOPIC_AUTHORIZATION_FAILED.code()
                                                    : stability(request.requireStable(), g.groupId(), c)));
                }
                gr.topics().add(tr);
            }
            gr.topics().addAll(unknownIds);
            response.groups().add(gr);
        }
        return CompletableFuture.completedFuture(response);
    }

    private static OffsetFetchResponseData.OffsetFetchResponseTopics unknownTopicId(Uuid id, List<Integer> partitions) {
        OffsetFetchResponseData.OffsetFetchResponseTopics tr =
                new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(id);
        for (int p : partitions) {
            tr.partitions()
                    .add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                            .setPartitionIndex(p)
                            .setCommittedOffset(-1)
                            .setCommittedLeaderEpoch(-1)
                            .setMetadata("")
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        return tr;
    }

    /**
     * Topic → committed entries (offset -1 for wanted partitions without a commit). Apache: all of a
     * group's offsets leave out topics the principal may not DESCRIBE; named ones are answered with
     * TOPIC_AUTHORIZATION_FAILED.
     */
    private Map<String, List<GroupOffsetsFile.Committed>> lookup(
            RequestContext ctx, String groupId, Map<String, List<Integer>> wanted) {
        Map<OffsetStore.PartitionKey, GroupOffsetsFile.Committed> committed = groups.committed(groupId);
        Map<String, List<GroupOffsetsFile.Committed>> out = new TreeMap<>();
        if (wanted == null) {
            java.util.Set<String> visible = ctx.allowedNames(
                    AclOperation.DESCRIBE,
                    ResourceType.TOPIC,
                    committed.keySet().stream()
                            .map(OffsetStore.PartitionKey::topic)
                            .toList());
            committed.forEach((k, c) -> {
                if (visible.contains(k.topic())) {
                    out.computeIfAbsent(k.topic(), t -> new ArrayList<>()).add(c);
                }
            });
            return out;
        }
        wanted.forEach((topic, partitions) -> {
            List<GroupOffsetsFile.Committed> list = out.computeIfAbsent(topic, t -> new ArrayList<>());
            if (!ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
                // Apache's UNAUTHORIZED_PARTITION: offset -1, no metadata; the error is set by the caller.
                partitions.forEach(p -> list.add(new GroupOffsetsFile.Committed(topic, p, -1, -1, "", -1)));
                return;
            }
            for (int p : partitions) {
                GroupOffsetsFile.Committed c = committed.get(new OffsetStore.PartitionKey(topic, p));
                list.add(c != null ? c : new GroupOffsetsFile.Committed(topic, p, -1, -1, "", -1));
            }
        });
        return out;
    }
}
