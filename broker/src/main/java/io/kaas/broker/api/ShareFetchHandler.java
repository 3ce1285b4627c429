package io.kaas.broker.api;

import io.kaas.broker.share.ShareFetches;
import io.kaas.broker.share.SharePartition;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * ShareFetch (KIP-932): moves the member's share session on, applies the acknowledgements it carries,
 * then acquires records of the session's partitions for the member, answering once both are durable.
 * With nothing to acquire it waits up to {@code MaxWaitMs} for an append to one of its partitions or a
 * release in its group (a record released, a lock expired, a member gone), the wake-up of Fetch's long
 * poll; each attempt runs on the handler pool.
 */
public final class ShareFetchHandler implements ApiHandler<ShareFetchRequestData> {
    private static final int DEFAULT_MAX_RECORDS = 500;

    private final ShareFetches fetches;
    private final ScheduledExecutorService timer;
    private final Executor pool;

    public ShareFetchHandler(ShareFetches fetches, ScheduledExecutorService timer, Executor pool) {
        this.fetches = fetches;
        this.timer = timer;
        this.pool = pool;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ShareFetchRequestData request) {
        ShareFetchResponseData out = new ShareFetchResponseData();
        String groupId = request.groupId();
        String memberId = request.memberId();
        if (groupId == null || groupId.isEmpty() || memberId == null || memberId.isEmpty()) {
            return done(out.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("GroupId and MemberId must be set"));
        }
        if (request.shareSessionEpoch() != -1 && !fetches.isMember(groupId, memberId)) {
            return done(out.setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())
                    .setErrorMessage(Errors.UNKNOWN_MEMBER_ID.message()));
        }
        Map<ShareAcknowledgements.Named, List<ShareFetches.Ack>> acks = new LinkedHashMap<>();
        Set<TopicIdPartition> added = new LinkedHashSet<>();
        List<ShareAcknowledgements.Named> unknown = new ArrayList<>();
        for (ShareFetchRequestData.FetchTopic t : request.topics()) {
            for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                ShareAcknowledgements.Named named =
                        ShareAcknowledgements.resolve(ctx, fetches, t.topicId(), p.partitionIndex());
                named.resolved().ifPresentOrElse(added::add, () -> unknown.add(named));
                if (!p.acknowledgementBatches().isEmpty()) {
                    acks.put(
                            named,
                            p.acknowledgementBatches().stream()
                                    .map(b ->
                                            new ShareFetches.Ack(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()))
                                    .toList());
                }
            }
        }
        Set<TopicIdPartition> forgotten = new LinkedHashSet<>();
        for (ShareFetchRequestData.ForgottenTopic t : request.forgottenTopicsData()) {
            for (int p : t.partitions()) {
                fetches.resolve(t.topicId(), p).ifPresent(forgotten::add);
            }
        }
        var opened = fetches.groups().sessions(groupId, memberId, request.shareSessionEpoch(), added, forgotten);
        if (opened.error() != Errors.NONE) {
            return done(out.setErrorCode(opened.error().code())
                    .setErrorMessage(opened.error().message()));
        }
        Map<ShareAcknowledgements.Named, Errors> ackErrors = new LinkedHashMap<>();
        List<CompletableFuture<Errors>> ackDurable = new ArrayList<>();
        acks.forEach((p, batches) ->
                ackDurable.add(ShareAcknowledgements.apply(fetches, groupId, memberId, p, batches, ackErrors)));
        CompletableFuture<Void> acked = CompletableFuture.allOf(ackDurable.toArray(CompletableFuture[]::new));
        SharePartition.Limits limits = fetches.groups().limitsOf(groupId);
        out.setAcquisitionLockTimeoutMs(limits.lockDurationMs());
        if (request.shareSessionEpoch() == -1) {
            return acked.thenApply(v -> respond(out, ackErrors, unknown, List.of()));
        }
        int maxRecords = request.maxRecords() > 0 ? request.maxRecords() : DEFAULT_MAX_RECORDS;
        List<TopicIdPartition> partitions = List.copyOf(opened.partitions());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.maxWaitMs()));
        Poll poll = new Poll(groupId, memberId, partitions, maxRecords, request.maxBytes(), deadline);
        CompletableFuture<ShareFetchResponseData> result = new CompletableFuture<>();
        // Acknowledgements only: the answer waits for them, not for records (an ack with errors or unknown
        // partitions is answered at once too, as before).
        boolean answerNow = !ackDurable.isEmpty() || !unknown.isEmpty() || partitions.isEmpty();
        attempt(poll, answerNow, acked, out, ackErrors, unknown, result);
        return result.thenApply(r -> (ApiMessage) r);
    }

    /** One ShareFetch's long poll: what it asks for and until when it may wait. */
    private record Poll(
            String groupId,
            String memberId,
            List<TopicIdPartition> partitions,
            int maxRecords,
            int maxBytes,
            long deadlineNanos) {}

    /**
     * Tries to acquire; answers when something was acquired (once durable), when told to, or at the deadline;
     * otherwise waits, as Fetch does, for an append to one of its partitions ({@code awaitHighWatermarkAbove}) or
     * a release in the group, whichever comes first, and tries again on the handler pool.
     */
    private void attempt(
            Poll poll,
            boolean answerNow,
            CompletableFuture<Void> acked,
            ShareFetchResponseData out,
            Map<ShareAcknowledgements.Named, Errors> ackErrors,
            List<ShareAcknowledgements.Named> unknown,
            CompletableFuture<ShareFetchResponseData> result) {
        ShareFetches.Attempt a;
        long releases;
        try {
            releases = fetches.releasesOf(poll.groupId());
            a = fetches.acquire(poll.groupId(), poll.memberId(), poll.partitions(), poll.maxRecords(), poll.maxBytes());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        long left = poll.deadlineNanos() - System.nanoTime();
        if (!a.acquired().isEmpty() || answerNow || left <= 0 || releases < 0) {
            CompletableFuture.allOf(acked, a.durable()).whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(respond(out, ackErrors, unknown, a.acquired()));
                }
            });
            return;
        }
        AtomicBoolean fired = new AtomicBoolean();
        List<CompletableFuture<Void>> wakers = new ArrayList<>();
        Runnable[] onRelease = new Runnable[1];
        Runnable wake = () -> {
            if (fired.compareAndSet(false, true)) {
                wakers.forEach(w -> w.cancel(false));
                // On the pool, not here: an append's waker may run under its partition's lock, and the
                // group's monitor is taken before partition locks.
                pool.execute(() -> {
                    fetches.cancelWake(poll.groupId(), onRelease[0]);
                    attempt(poll, false, acked, out, ackErrors, unknown, result);
                });
            }
        };
        for (ShareFetches.Waitable w : a.waitable()) {
            wakers.add(w.log().awaitHighWatermarkAbove(w.highWatermark()));
        }
        ScheduledFuture<?> timeout = timer.schedule(wake, left, TimeUnit.NANOSECONDS);
        onRelease[0] = () -> {
            timeout.cancel(false);
            wake.run();
        };
        if (!fetches.wakeOnRelease(poll.groupId(), releases, onRelease[0])) {
            onRelease[0].run();
        }
        for (CompletableFuture<Void> w : wakers) {
            w.whenComplete((v, e) -> {
                if (!w.isCancelled()) {
                    timeout.cancel(false);
                    wake.run();
                }
            });
        }
    }

    private static ShareFetchResponseData respond(
            ShareFetchResponseData out,
            Map<ShareAcknowledgements.Named, Errors> ackErrors,
            List<ShareAcknowledgements.Named> unknown,
            List<ShareFetches.Acquisition> got) {
        Map<Uuid, ShareFetchResponseData.ShareFetchableTopicResponse> topics = new LinkedHashMap<>();
        Map<String, ShareFetchResponseData.PartitionData> byPartition = new LinkedHashMap<>();
        for (ShareFetches.Acquisition a : got) {
            ShareFetchResponseData.PartitionData pd = partition(
                    topics, byPartition, a.partition().topicId(), a.partition().partition());
            pd.setRecords(a.records());
            for (SharePartition.Acquired r : a.acquired()) {
                pd.acquiredRecords()
                        .add(new ShareFetchResponseData.AcquiredRecords()
                                .setFirstOffset(r.firstOffset())
                                .setLastOffset(r.lastOffset())
                                .setDeliveryCount((short) r.deliveryCount()));
            }
        }
        ackErrors.forEach((p, e) -> partition(topics, byPartition, p.topicId(), p.partition())
                .setAcknowledgeErrorCode(e.code())
                .setAcknowledgeErrorMessage(e == Errors.NONE ? null : e.message()));
        for (ShareAcknowledgements.Named p : unknown) {
            partition(topics, byPartition, p.topicId(), p.partition())
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
        }
        out.responses().addAll(topics.values());
        return out;
    }

    private static ShareFetchResponseData.PartitionData partition(
            Map<Uuid, ShareFetchResponseData.ShareFetchableTopicResponse> topics,
            Map<String, ShareFetchResponseData.PartitionData> byPartition,
            Uuid topicId,
            int partition) {
        return byPartition.computeIfAbsent(topicId + "-" + partition, k -> {
            ShareFetchResponseData.PartitionData pd = new ShareFetchResponseData.PartitionData()
                    .setPartitionIndex(partition)
                    .setRecords(MemoryRecords.EMPTY)
                    .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch()
                            .setLeaderId(-1)
                            .setLeaderEpoch(-1));
            topics.computeIfAbsent(
                            topicId, id -> new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(id))
                    .partitions()
                    .add(pd);
            return pd;
        });
    }

    private static CompletableFuture<ApiMessage> done(ApiMessage m) {
        return CompletableFuture.completedFuture(m);
    }
}
