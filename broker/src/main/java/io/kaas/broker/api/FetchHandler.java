package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.fetch.FetchBudget;
import io.kaas.broker.fetch.FetchContext;
import io.kaas.broker.fetch.FetchSessionCache;
import io.kaas.broker.quota.Throttling;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.FileSliceRecords;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.ReadLimit;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.AbortedTransaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Fetch, with incremental fetch sessions (KIP-227, {@link FetchSessionCache}): a request names only the
 * partitions whose position changed and the response carries only partitions with something new. Reads
 * whole batches up to the read cap (high watermark, or last stable offset for read_committed), never
 * decoding them, within the request's byte limits as {@link FetchBudget} counts them (KIP-74). When fewer than min_bytes are available it long-polls without parking a thread:
 * it subscribes to {@link PartitionLog#awaitHighWatermarkAbove} for every partition it read and arms
 * a timer on the broker's scheduler for max_wait_ms; whichever fires first re-runs the read on the
 * request-handler pool.
 *
 * <p>Client quotas as Apache (KIP-219): a consumer's fetch size is capped at what its consumer_byte_rate
 * allows in one quota window, and a fetch whose answer would put it over its byte rate (or its
 * request_percentage) is answered with no records and {@code throttle_time_ms}, its connection muted.
 */
public final class FetchHandler implements ApiHandler<FetchRequestData> {
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private final TopicCatalog topics;
    private final ScheduledExecutorService timer;
    private final Executor handlerPool;
    private final FetchSessionCache sessions;
    private final TrafficObserver traffic;
    private final Throttling throttling;

    public FetchHandler(
            TopicCatalog topics, ScheduledExecutorService timer, Executor handlerPool, FetchSessionCache sessions) {
        this(topics, timer, handlerPool, sessions, TrafficObserver.NONE, null);
    }

    /** @param throttling the client quotas, or null for none */
    public FetchHandler(
            TopicCatalog topics,
            ScheduledExecutorService timer,
            Executor handlerPool,
            FetchSessionCache sessions,
            TrafficObserver traffic,
            Throttling throttling) {
        this.traffic = traffic;
        this.throttling = throttling;
        this.topics = topics;
        this.timer = timer;
        this.handlerPool = handlerPool;
        this.sessions = sessions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, FetchRequestData request) {
        FetchContext session = sessions.newContext(request, ctx.apiVersion());
        if (session.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(session.finish(new FetchResponseData()));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.maxWaitMs()));
        long maxBytes = request.maxBytes() <= 0 ? Integer.MAX_VALUE : request.maxBytes();
        if (throttling != null) {
            maxBytes =
                    Math.min(maxBytes, throttling.maxFetchBytes(ctx.principal().getName(), ctx.clientId()));
        }
        Poll poll = new Poll(request, session, deadline, maxBytes, Math.min(request.minBytes(), maxBytes));
        CompletableFuture<ApiMessage> done = new CompletableFuture<>();
        attempt(ctx, poll, done);
        return done;
    }

    /**
     * One Fetch's long poll: its size limits (the quota's cap applied) and the handler time its attempts
     * took, which request_percentage counts. Attempts run one after another, each started from the last.
     */
    private static final class Poll {
        final FetchRequestData request;
        final FetchContext session;
        final long deadline;
        final long maxBytes;
        final long minBytes;
        long handlerNanos;

        Poll(FetchRequestData request, FetchContext session, long deadline, long maxBytes, long minBytes) {
            this.request = request;
            this.session = session;
            this.deadline = deadline;
            this.maxBytes = maxBytes;
            this.minBytes = minBytes;
        }
    }

    private void attempt(RequestContext ctx, Poll poll, CompletableFuture<ApiMessage> done) {
        long started = System.nanoTime();
        Attempt a;
        try {
            a = readOnce(ctx, poll, poll.session.topics());
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
            return;
        }
        long now = System.nanoTime();
        poll.handlerNanos += now - started;
        long remainingNanos = poll.deadline - now;
        if (a.bytes >= poll.minBytes || a.hadError || remainingNanos <= 0 || a.waitable.isEmpty()) {
            answer(ctx, poll, a, done);
            return;
        }
        // Not enough yet: this attempt's response is dropped (the next attempt reads again), and with it
        // the file slices it holds, which would otherwise keep their segment files open.
        FileSliceRecords.releaseAll(a.response);
        AtomicBoolean fired = new AtomicBoolean();
        List<CompletableFuture<Void>> wakers = new ArrayList<>();
        Runnable wake = () -> {
            if (fired.compareAndSet(false, true)) {
                wakers.forEach(w -> w.cancel(false));
                handlerPool.execute(() -> attempt(ctx, poll, done));
            }
        };
        for (Waitable w : a.waitable) {
            wakers.add(w.log.awaitHighWatermarkAbove(w.offset));
        }
        ScheduledFuture<?> timeout = timer.schedule(wake, remainingNanos, TimeUnit.NANOSECONDS);
        for (CompletableFuture<Void> w : wakers) {
            w.whenComplete((v, e) -> {
                if (!w.isCancelled()) {
                    timeout.cancel(false);
                    wake.run();
                }
            });
        }
    }

    /** Sends the attempt's response, or, when the client is over a quota, one with no records (KIP-219). */
    private void answer(RequestContext ctx, Poll poll, Attempt a, CompletableFuture<ApiMessage> done) {
        if (throttling != null && throttling.active()) {
            int throttleMs;
            try {
                throttleMs = throttling.throttleFetch(
                        ctx.session(),
                        ctx.principal().getName(),
                        ctx.clientId(),
                        poll.session.responseSize(a.response, ctx.apiVersion()),
                        poll.handlerNanos);
            } catch (RuntimeException e) {
                FileSliceRecords.releaseAll(a.response);
                done.completeExceptionally(e);
                return;
            }
            if (throttleMs > 0) {
                FileSliceRecords.releaseAll(a.response);
                done.complete(poll.session.throttled(throttleMs));
                return;
            }
        }
        // Only the attempt that is answered counts: a long-poll's earlier attempts are re-read, not sent.
        a.sent.forEach(traffic::fetched);
        done.complete(poll.session.finish(a.response));
    }

    private record Waitable(PartitionLog log, long offset) {}

    private static final class Attempt {
        final FetchResponseData response = new FetchResponseData().setErrorCode((short) 0);
        final List<Waitable> waitable = new ArrayList<>();
        final Map<String, Long> sent = new HashMap<>(4);
        long bytes;
        boolean hadError;
    }

    private Attempt readOnce(RequestContext ctx, Poll poll, List<FetchRequestData.FetchTopic> fetchTopics) {
        Attempt a = new Attempt();
        try {
            fill(a, ctx, poll, fetchTopics);
        } catch (RuntimeException e) {
            FileSliceRecords.releaseAll(a.response);
            throw e;
        }
        return a;
    }

    private void fill(Attempt a, RequestContext ctx, Poll poll, List<FetchRequestData.FetchTopic> fetchTopics) {
        boolean readCommitted = poll.request.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        FetchBudget budget = new FetchBudget(poll.maxBytes);
        for (FetchRequestData.FetchTopic fetchTopic : fetchTopics) {
            FetchResponseData.FetchableTopicResponse topicResponse = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(fetchTopic.topic())
                    .setTopicId(fetchTopic.topicId());
            a.response.responses().add(topicResponse);
            Optional<TopicInfo> topic = ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION
                    ? topics.topicById(Uuids.toJava(fetchTopic.topicId()))
                    : topics.topic(fetchTopic.topic());
            Errors topicError = topic.isPresent()
                    ? Errors.NONE
                    : ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION
                            ? Errors.UNKNOWN_TOPIC_ID
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            // Apache: READ on the topic, checked before its existence when named (an unknown id stays
            // UNKNOWN_TOPIC_ID).
            String name = topic.map(TopicInfo::name)
                    .orElse(ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION ? null : fetchTopic.topic());
            if (name != null && !ctx.allowed(AclOperation.READ, ResourceType.TOPIC, name)) {
                topicError = Errors.TOPIC_AUTHORIZATION_FAILED;
            }
            for (FetchRequestData.FetchPartition fp : fetchTopic.partitions()) {
                FetchResponseData.PartitionData out = new FetchResponseData.PartitionData()
                        .setPartitionIndex(fp.partition())
                        .setHighWatermark(-1)
                        .setLastStableOffset(-1)
                        .setLogStartOffset(-1)
                        .setPreferredReadReplica(-1)
                        .setRecords(MemoryRecords.EMPTY);
                topicResponse.partitions().add(out);
                if (topicError != Errors.NONE
                        || fp.partition() < 0
                        || fp.partition() >= topic.get().partitions()) {
                    out.setErrorCode(
                            (topicError != Errors.NONE ? topicError : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    a.hadError = true;
                    continue;
                }
                try {
                    PartitionLog log = topics.partition(topic.get().name(), fp.partition());
                    PartitionState state = log.state();
                    long readCap = readCommitted ? state.lastStableOffset() : state.highWatermark();
                    fillOffsets(out, state);
                    if (fp.fetchOffset() < state.logStartOffset() || fp.fetchOffset() > state.highWatermark()) {
                        out.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                        a.hadError = true;
                        continue;
                    }
                    Optional<ReadLimit> limit = budget.next(fp.partitionMaxBytes());
                    if (limit.isEmpty()) {
                        continue;
                    }
                    // Plaintext listeners send batches as file regions (sendfile) when the engine can; TLS
                    // must encrypt every byte, so its listeners copy (sendfile cannot encrypt).
                    FetchResult result = ctx.session().listener().zeroCopyFetch()
                            ? log.readForTransfer(fp.fetchOffset(), limit.get(), readCap)
                            : log.read(fp.fetchOffset(), limit.get(), readCap);
                    fillOffsets(out, result.state());
                    int n = result.sizeInBytes();
                    if (n > 0) {
                        out.setRecords(
                                result.file() != null
                                        ? new FileSliceRecords(result.file())
                                        : MemoryRecords.readableRecords(result.records()));
                        a.bytes += n;
                        a.sent.merge(topic.get().name(), (long) n, Long::sum);
                        budget.took(n);
                        if (readCommitted) {
                            out.setAbortedTransactions(aborted(log, fp.fetchOffset(), readCap));
                        }
                    } else {
                        // Wake when something past what we could read arrives; with read_committed and an open
                        // transaction that is beyond the high watermark, not the fetch offset (no busy loop).
                        a.waitable.add(new Waitable(
                                log, Math.max(fp.fetchOffset(), result.state().highWatermark())));
                    }
                } catch (RuntimeException e) {
                    out.setErrorCode(ErrorMapping.toKafka(e).code());
                    a.hadError = true;
                }
            }
        }
    }

    private static void fillOffsets(FetchResponseData.PartitionData out, PartitionState state) {
        out.setHighWatermark(state.highWatermark())
                .setLastStableOffset(state.lastStableOffset())
                .setLogStartOffset(state.logStartOffset());
    }

    private static List<FetchResponseData.AbortedTransaction> aborted(PartitionLog log, long from, long to) {
        List<FetchResponseData.AbortedTransaction> out = new ArrayList<>();
        for (AbortedTransaction t : log.abortedTransactions(from, to)) {
            out.add(new FetchResponseData.AbortedTransaction()
                    .setProducerId(t.producerId())
                    .setFirstOffset(t.firstOffset()));
        }
        return out;
    }
}
