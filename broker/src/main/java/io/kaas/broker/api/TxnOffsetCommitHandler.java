package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import io.kaas.broker.txn.TransactionalOffsetsGate;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit, to the group's coordinator: once the transaction coordinator confirms the group's slot is in the
 * producer's transaction ({@link TransactionalOffsetsGate}), the offsets are staged as the producer's pending offsets
 * in the group's state, durably ({@link GroupCoordinator#stageTransactional}); the transaction's COMMIT marker makes
 * them the group's committed offsets, its ABORT marker drops them. v3+ carries the consumer's group metadata (KIP-447),
 * which exactly_once_v2 relies on to fence zombies. v5 is transaction protocol v2 (KIP-890 part 2): the
 * group joins the transaction with its first TxnOffsetCommit. v6 names topics by id (KIP-1319; an id no
 * topic has: UNKNOWN_TOPIC_ID).
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequestData> {
    public static final int MAX_VERSION = 6;
    /** v6+ names topics by id (KIP-1319), resolved by {@link TopicIdLookup}. */
    private static final int FIRST_TOPIC_ID_VERSION = 6;
    /** v5+: transaction protocol v2, the group joins the transaction here (no AddOffsetsToTxn). */
    private static final int FIRST_V2_VERSION = 5;

    private static final int FIRST_PRODUCER_FENCED_VERSION = 3;

    private final GroupCoordinator groups;
    private final TransactionalOffsetsGate gate;
    private final TopicCatalog topics;

    public TxnOffsetCommitHandler(GroupCoordinator groups, TransactionalOffsetsGate gate, TopicCatalog topics) {
        this.groups = groups;
        this.gate = gate;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, TxnOffsetCommitRequestData request) {
        long now = System.currentTimeMillis();
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        List<GroupOffsetsFile.Committed> staged = new ArrayList<>();
        List<TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition> accepted = new ArrayList<>();
        boolean byId = ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : request.topics()) {
            CommittedTopic topic = CommittedTopic.resolve(ctx, topics, byId, t.name(), t.topicId());
            TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic tr =
                    new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic()
                            .setName(topic.answeredName())
                            .setTopicId(t.topicId());
            response.topics().add(tr);
            for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions()) {
                TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition pr =
                        new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex());
                tr.partitions().add(pr);
                Errors refused = topic.refusal(p.partitionIndex());
                if (refused != Errors.NONE) {
                    pr.setErrorCode(refused.code());
                    continue;
                }
                staged.add(topic.commit(
                        p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), now));
                accepted.add(pr);
            }
        }
        Errors e = stage(ctx, request, staged);
        Errors answered = TransactionErrors.forVersion(e, ctx.apiVersion(), FIRST_PRODUCER_FENCED_VERSION);
        accepted.forEach(pr -> pr.setErrorCode(answered.code()));
        return CompletableFuture.completedFuture(response);
    }

    private Errors stage(
            RequestContext ctx, TxnOffsetCommitRequestData request, List<GroupOffsetsFile.Committed> staged) {
        if (request.groupId().isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!groups.active(request.groupId())) {
            return Errors.NOT_COORDINATOR;
        }
        Errors e = gate.check(
                request.transactionalId(),
                request.producerId(),
                request.producerEpoch(),
                request.groupId(),
                ctx.apiVersion() >= FIRST_V2_VERSION);
        if (e != Errors.NONE) {
            return e;
        }
        return groups.stageTransactional(
                request.groupId(),
                request.memberId(),
                request.groupInstanceId(),
                request.generationIdOrMemberEpoch(),
                request.producerId(),
                request.producerEpoch(),
                staged);
    }
}
