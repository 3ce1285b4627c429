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
 * OffsetCommit (served up to v9: v10 names topics by id). Partitions of unknown topics get
 * UNKNOWN_TOPIC_OR_PARTITION; the rest are validated against the group's membership and written
 * durably before the response.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequestData> {
    public static final int MAX_VERSION = 9;

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
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
            OffsetCommitResponseData.OffsetCommitResponseTopic tr =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
            response.topics().add(tr);
            Optional<TopicInfo> topic = topics.topic(t.name());
            boolean allowed = ctx.allowed(AclOperation.READ, ResourceType.TOPIC, t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                OffsetCommitResponseData.OffsetCommitResponsePartition pr =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex());
                tr.partitions().add(pr);
                if (!allowed) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (!TopicCatalog.hasPartition(topic, p.partitionIndex())) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                commits.add(new GroupOffsetsFile.Committed(
                        t.name(),
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
