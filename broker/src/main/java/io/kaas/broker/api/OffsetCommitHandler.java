package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit; v10 names topics by id (an id no topic has: UNKNOWN_TOPIC_ID). Partitions of unknown
 * topics get UNKNOWN_TOPIC_OR_PARTITION; the rest are validated against the group's membership and written
 * durably before the response. A share group commits no offsets: its partitions answer GROUP_ID_NOT_FOUND, as
 * Apache's share group refuses an offset commit ("Group g is not a consumer group.", {@link GroupIdTypes}).
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequestData> {
    public static final int MAX_VERSION = 10;
    /** v10+ names topics by id (KIP-848), resolved by {@link TopicIdLookup}. */
    private static final int FIRST_TOPIC_ID_VERSION = 10;

    private final GroupCoordinator groups;
    private final TopicCatalog topics;
    private final GroupIdTypes types;

    public OffsetCommitHandler(GroupCoordinator groups, TopicCatalog topics, ShareGroups shares) {
        this.groups = groups;
        this.topics = topics;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, OffsetCommitRequestData request) {
        long now = System.currentTimeMillis();
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        List<GroupOffsetsFile.Committed> commits = new ArrayList<>();
        List<OffsetCommitResponseData.OffsetCommitResponsePartition> accepted = new ArrayList<>();
        boolean byId = ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
            CommittedTopic topic = CommittedTopic.resolve(ctx, topics, byId, t.name(), t.topicId());
            OffsetCommitResponseData.OffsetCommitResponseTopic tr =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic()
                            .setName(topic.answeredName())
                            .setTopicId(t.topicId());
            response.topics().add(tr);
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                OffsetCommitResponseData.OffsetCommitResponsePartition pr =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex());
                tr.partitions().add(pr);
                Errors refused = topic.refusal(p.partitionIndex());
                if (refused != Errors.NONE) {
                    pr.setErrorCode(refused.code());
                    continue;
                }
                commits.add(topic.commit(
                        p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), now));
                accepted.add(pr);
            }
        }
        Errors e = request.groupId() != null && types.isShareGroup(request.groupId())
                ? Errors.GROUP_ID_NOT_FOUND
                : groups.commit(
                        request.groupId(),
                        request.memberId(),
                        request.groupInstanceId(),
                        request.generationIdOrMemberEpoch(),
                        commits);
        accepted.forEach(pr -> pr.setErrorCode(e.code()));
        return CompletableFuture.completedFuture(response);
    }
}
