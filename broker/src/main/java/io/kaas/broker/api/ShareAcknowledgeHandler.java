package io.kaas.broker.api;

import io.kaas.broker.share.ShareFetches;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareAcknowledge (KIP-932): a member's explicit acknowledgements (commitSync/commitAsync, close) in
 * its share session; epoch -1 also closes the session.
 */
public final class ShareAcknowledgeHandler implements ApiHandler<ShareAcknowledgeRequestData> {
    private final ShareFetches fetches;

    public ShareAcknowledgeHandler(ShareFetches fetches) {
        this.fetches = fetches;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ShareAcknowledgeRequestData request) {
        ShareAcknowledgeResponseData out = new ShareAcknowledgeResponseData();
        String groupId = request.groupId();
        String memberId = request.memberId();
        if (groupId == null || groupId.isEmpty() || memberId == null || memberId.isEmpty()) {
            return CompletableFuture.completedFuture(out.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("GroupId and MemberId must be set"));
        }
        Errors session = fetches.groups().acknowledgeInSession(groupId, memberId, request.shareSessionEpoch());
        if (session != Errors.NONE) {
            return CompletableFuture.completedFuture(
                    out.setErrorCode(session.code()).setErrorMessage(session.message()));
        }
        out.setAcquisitionLockTimeoutMs(fetches.groups().limitsOf(groupId).lockDurationMs());
        Map<Uuid, ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse> topics = new LinkedHashMap<>();
        List<CompletableFuture<Errors>> durable = new ArrayList<>();
        for (ShareAcknowledgeRequestData.AcknowledgeTopic t : request.topics()) {
            for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                ShareAcknowledgements.Named named =
                        ShareAcknowledgements.resolve(ctx, fetches, t.topicId(), p.partitionIndex());
                ShareAcknowledgeResponseData.PartitionData pd = new ShareAcknowledgeResponseData.PartitionData()
                        .setPartitionIndex(p.partitionIndex())
                        .setCurrentLeader(new ShareAcknowledgeResponseData.LeaderIdAndEpoch()
                                .setLeaderId(-1)
                                .setLeaderEpoch(-1));
                topics.computeIfAbsent(
                                t.topicId(),
                                id -> new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(id))
                        .partitions()
                        .add(pd);
                durable.add(ShareAcknowledgements.apply(
                                fetches,
                                groupId,
                                memberId,
                                named,
                                p.acknowledgementBatches().stream()
                                        .map(b -> new ShareFetches.Ack(
                                                b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()))
                                        .toList(),
                                new LinkedHashMap<>())
                        .thenApply(e -> {
                            pd.setErrorCode(e.code()).setErrorMessage(e == Errors.NONE ? null : e.message());
                            return e;
                        }));
            }
        }
        out.responses().addAll(topics.values());
        // Answered once every acknowledgement of the request is durable.
        return CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new))
                .thenApply(v -> (ApiMessage) out);
    }
}
