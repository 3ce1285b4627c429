package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetCommit; v10 names topics by id (an id no topic has: UNKNOWN_TOPIC_ID). Partitions of unknown
 * topics get UNKNOWN_TOPIC_OR_PARTITION; the rest are validated against the group's membership and written
 * durably before the response.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequestData> {
    public static final int MAX_VERSION = 10;
    /** v10+ names topics by id (KIP-848), resolved by {@link TopicIdLookup}. */
    private static final int FIRST_TOPIC_ID_VERSION = 10;

    private final GroupCoordinator groups;
    private final TopicCatalog topics;

    public OffsetCommitHandler(GroupCoordinator groups, TopicCatalog topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, OffsetCommitRequestData request) {
        long now = System.currentTimeMillis();
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        List<GroupOffsetsFile.Committed> commits = new ArrayList<>();
        List<OffsetCommitResponseData.OffsetCommitResponsePartition> accepted = new ArrayList<>();
        boolean byId = ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
            String name = byId ? TopicIdLookup.name(topics, t.topicId()).orElse(null) : t.name();
            OffsetCommitResponseData.OffsetCommitResponseTopic tr =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic()
                            .setName(name == null ? "" : name)
                            .setTopicId(t.topicId());
            response.topics().add(tr);
            Optional<TopicInfo> topic = name == null ? Optional.empty() : topics.topic(name);
            boolean allowed = name != null && ctx.allowed(AclOperation.READ, ResourceType.TOPIC, name);
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                OffsetCommitResponseData.OffsetCommitResponsePartition pr =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex());
                tr.partitions().add(pr);
                if (name == null) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                if (!allowed) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (!TopicCatalog.hasPartition(topic, p.partitionIndex())) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                commits.add(new GroupOffsetsFile.Committed(
                        name,
                        p.partitionIndex(),
                        p.committedOffset(),
                        p.committedLeaderEpoch(),
                        p.committedMetadata(),
                        now));
                accepted.add(pr);
            }
        }
        Errors e = groups.commit(
                request.groupId(),
                request.memberId(),
                request.groupInstanceId(),
                request.generationIdOrMemberEpoch(),
                commits);
        accepted.forEach(pr -> pr.setErrorCode(e.code()));
        return CompletableFuture.completedFuture(response);
    }
}
