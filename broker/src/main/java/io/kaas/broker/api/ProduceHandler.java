package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.ApacheTopicConfigs;
import io.kaas.broker.txn.TransactionalProduceGate;
import io.kaas.broker.txn.TxnPartition;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.io.StorageException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce. Gates, per partition: topic exists (or is auto-created), partition exists, acks valid,
 * batch size, transaction membership ({@link TransactionalProduceGate}, headers only).
 * The records are the request frame's own bytes ({@link MemoryRecords#buffer()}): they go to
 * {@link PartitionLog#append} undecoded, which validates the batch headers and CRCs (CORRUPT_MESSAGE,
 * nothing written) and does idempotence. With acks=all the append future completes on the partition's
 * committer after the fsync; the response is assembled from whichever thread completes last.
 * acks=0 completes with null: the dispatcher sends nothing.
 *
 * <p>The records are a view of the request's pooled frame, released when the returned future
 * completes: so it never completes before every append it started has (acks=0 included, and when
 * something throws half-way through the request).
 */
public final class ProduceHandler implements ApiHandler<ProduceRequestData> {
    private static final Logger LOG = LoggerFactory.getLogger(ProduceHandler.class);
    /** Produce v13 names topics by id. */
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    /** Apache's default (1048588: 1 MiB plus batch overhead); kaas has no broker-level message.max.bytes setting. */
    private static final int DEFAULT_MAX_MESSAGE_BYTES =
            Integer.parseInt(ApacheTopicConfigs.defaultValue(MAX_MESSAGE_BYTES));
    /** A batch's size is its 12-byte offset+length prefix plus the length. */
    private static final int BATCH_PREFIX = 12, LENGTH_OFFSET = 8;

    private final TopicCatalog topics;
    private final TransactionalProduceGate transactions;
    private final TrafficObserver traffic;
    private final BooleanSupplier mayAcknowledge;

    public ProduceHandler(TopicCatalog topics, TransactionalProduceGate transactions) {
        this(topics, transactions, TrafficObserver.NONE);
    }

    public ProduceHandler(TopicCatalog topics, TransactionalProduceGate transactions, TrafficObserver traffic) {
        this(topics, transactions, traffic, () -> true);
    }

    /**
     * @param mayAcknowledge the self-fence of a broker sharing its directory with others
     *                       ({@code LeaseKeeper#mayAcknowledge}): asked before each append and again once
     *                       every append of the request is fsynced, immediately before the response is built;
     *                       when it says no, nothing is acknowledged (NOT_LEADER_OR_FOLLOWER, the client
     *                       re-routes to the partition's next owner)
     */
    public ProduceHandler(
            TopicCatalog topics,
            TransactionalProduceGate transactions,
            TrafficObserver traffic,
            BooleanSupplier mayAcknowledge) {
        this.topics = topics;
        this.transactions = transactions;
        this.traffic = traffic;
        this.mayAcknowledge = mayAcknowledge;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ProduceRequestData request) {
        return handle(
                ctx,
                request,
                (topic, partition, batches, acks) ->
                        topics.partition(topic, partition).append(batches, acks, -1),
                true);
    }

    /**
     * acks=0 and acks=1 without a transaction, on the event loop: nothing in it waits for the disk
     * (no fsync answers it), so the hand-off to a handler thread and back would be most of its cost.
     * Appends whose partition could block this thread ({@link PartitionLog#appendWithoutBlocking} says
     * no: lock busy, roll due, file closed; or the partition is not loaded) go to {@code handlerPool}, in
     * request order, and {@code handled} completes after them, so a pipelined request behind this one
     * still appends after it. Null (nothing done) for acks=all, a transactional request, or a topic that
     * is not known here (auto-creation writes files): those run on the pool as before.
     */
    @Override
    public Started startOnNetworkThread(
            RequestContext ctx, ProduceRequestData request, java.util.concurrent.Executor handlerPool) {
        if ((request.acks() != 0 && request.acks() != 1) || request.transactionalId() != null) {
            return null;
        }
        List<Deferred> deferred = new ArrayList<>();
        Appender inline = (topic, partition, batches, acks) -> {
            Optional<PartitionLog> log = topics.partitionIfOpen(topic, partition);
            CompletableFuture<AppendResult> f =
                    log.isPresent() ? log.get().appendWithoutBlocking(batches, acks, -1) : null;
            if (f != null) {
                return f;
            }
            Deferred d = new Deferred(topic, partition, batches, acks, new CompletableFuture<>());
            deferred.add(d);
            return d.result;
        };
        CompletableFuture<ApiMessage> response = handle(ctx, request, inline, false);
        if (response == null) {
            return null;
        }
        if (deferred.isEmpty()) {
            return new Started(CompletableFuture.completedFuture(null), response);
        }
        CompletableFuture<Void> handled = new CompletableFuture<>();
        handlerPool.execute(() -> {
            try {
                for (Deferred d : deferred) {
                    try {
                        topics.partition(d.topic, d.partition)
                                .append(d.batches, d.acks, -1)
                                .whenComplete((r, t) -> {
                                    if (t != null) {
                                        d.result.completeExceptionally(t);
                                    } else {
                                        d.result.complete(r);
                                    }
                                });
                    } catch (RuntimeException e) {
                        d.result.completeExceptionally(e);
                    }
                }
            } finally {
                handled.complete(null);
            }
        });
        return new Started(handled, response);
    }

    /** How an accepted partition's batches are appended: at once on a handler thread, or without blocking on the event loop. */
    @FunctionalInterface
    private interface Appender {
        CompletableFuture<AppendResult> append(String topic, int partition, ByteBuffer batches, Acks acks);
    }

    /** An append the event loop left to the handler pool. */
    private record Deferred(
            String topic, int partition, ByteBuffer batches, Acks acks, CompletableFuture<AppendResult> result) {}

    /** Null only when {@code !mayBlock} and a topic is not known here (nothing appended yet). */
    private CompletableFuture<ApiMessage> handle(
            RequestContext ctx, ProduceRequestData request, Appender appender, boolean mayBlock) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        try {
            return handle(ctx, request, pending, appender, mayBlock);
        } catch (RuntimeException e) {
            CompletableFuture<ApiMessage> failed = new CompletableFuture<>();
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .whenComplete((v, t) -> failed.completeExceptionally(e));
            return failed;
        }
    }

    private CompletableFuture<ApiMessage> handle(
            RequestContext ctx,
            ProduceRequestData request,
            List<CompletableFuture<?>> pending,
            Appender appender,
            boolean mayBlock) {
        short acksWire = request.acks();
        boolean acksValid = acksWire == 0 || acksWire == 1 || acksWire == -1;
        Acks acks = acksValid ? Acks.fromKafka(acksWire) : Acks.ALL;
        ProduceResponseData response = new ProduceResponseData();
        List<Accepted> accepted = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topicData : request.topicData()) {
            ProduceResponseData.TopicProduceResponse topicResponse = new ProduceResponseData.TopicProduceResponse()
                    .setName(topicData.name())
                    .setTopicId(topicData.topicId());
            response.responses().add(topicResponse);
            Errors topicError = Errors.NONE;
            Optional<TopicInfo> topic = Optional.empty();
            if (!acksValid) {
                topicError = Errors.INVALID_REQUIRED_ACKS;
            } else if (ctx.apiVersion() >= FIRST_TOPIC_ID_VERSION) {
                topic = topics.topicById(Uuids.toJava(topicData.topicId()));
                topicError = topic.isEmpty()
                        ? Errors.UNKNOWN_TOPIC_ID
                        : ctx.allowed(
                                        AclOperation.WRITE,
                                        ResourceType.TOPIC,
                                        topic.get().name())
                                ? Errors.NONE
                                : Errors.TOPIC_AUTHORIZATION_FAILED;
            } else if (!ctx.allowed(AclOperation.WRITE, ResourceType.TOPIC, topicData.name())) {
                // Apache: WRITE on the topic, before anything else is looked at (a denied topic is never auto-created).
                topicError = Errors.TOPIC_AUTHORIZATION_FAILED;
            } else {
                try {
                    TopicCatalog.validateName(topicData.name());
                    // kaas auto-creates on Produce too; with ACLs only for who may create the topic.
                    topic = topics.topic(topicData.name());
                    if (topic.isEmpty() && !mayBlock) {
                        return null; // auto-creation writes files: the handler pool's job
                    }
                    if (topic.isEmpty()) {
                        topic = topics.getOrAutoCreate(topicData.name(), ctx.mayCreateTopic(topicData.name()));
                    }
                    topicError = topic.isPresent() ? Errors.NONE : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                } catch (InvalidTopicException e) {
                    topicError = Errors.INVALID_TOPIC_EXCEPTION;
                }
            }
            for (ProduceRequestData.PartitionProduceData partitionData : topicData.partitionData()) {
                ProduceResponseData.PartitionProduceResponse partitionResponse =
                        new ProduceResponseData.PartitionProduceResponse()
                                .setIndex(partitionData.index())
                                .setBaseOffset(-1)
                                .setLogAppendTimeMs(-1)
                                .setLogStartOffset(-1);
                topicResponse.partitionResponses().add(partitionResponse);
                Errors error = topicError;
                if (error == Errors.NONE && !TopicCatalog.hasPartition(topic, partitionData.index())) {
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                if (error == Errors.NONE && !(partitionData.records() instanceof MemoryRecords)) {
                    error = Errors.CORRUPT_MESSAGE;
                }
                if (error != Errors.NONE) {
                    partitionResponse.setErrorCode(error.code());
                    continue;
                }
                ByteBuffer batches = ((MemoryRecords) partitionData.records()).buffer();
                String topicName = topic.get().name(); // v13 requests name the topic by id only
                int maxBytes = maxMessageBytes(topic.get());
                int largest = largestBatch(batches);
                if (largest > maxBytes) {
                    // Apache's check and message (RecordTooLargeException): the limit is per batch, not per record.
                    partitionResponse
                            .setErrorCode(Errors.MESSAGE_TOO_LARGE.code())
                            .setErrorMessage("The record batch size in the append to "
                                    + topicName + "-" + partitionData.index() + " is " + largest
                                    + " bytes which exceeds the maximum configured value of " + maxBytes + ".");
                    continue;
                }
                accepted.add(new Accepted(partitionResponse, topicName, partitionData.index(), batches));
            }
        }
        // Transaction checks for the whole request at once (one coordinator write for the partitions it adds).
        List<TransactionalProduceGate.PartitionBatches> checked = new ArrayList<>();
        accepted.forEach(a -> checked.add(
                new TransactionalProduceGate.PartitionBatches(new TxnPartition(a.topic, a.partition), a.batches)));
        List<Errors> txnErrors = accepted.isEmpty()
                ? List.of()
                : transactions.check(ctx.apiVersion(), request.transactionalId(), checked);
        for (int i = 0; i < accepted.size(); i++) {
            Accepted a = accepted.get(i);
            if (txnErrors.get(i) != Errors.NONE) {
                a.response.setErrorCode(txnErrors.get(i).code());
                continue;
            }
            String topicName = a.topic;
            ByteBuffer batches = a.batches;
            ProduceResponseData.PartitionProduceResponse partitionResponse = a.response;
            int bytes = batches.remaining();
            CompletableFuture<AppendResult> append;
            try {
                if (!mayAcknowledge.getAsBoolean()) {
                    throw fenced(topicName, a.partition);
                }
                append = appender.append(topicName, a.partition, batches, acks);
            } catch (RuntimeException e) {
                append = CompletableFuture.failedFuture(e);
            }
            pending.add(append.handle((result, failure) -> {
                if (failure == null && !result.duplicate()) {
                    traffic.produced(topicName, result.lastOffset() - result.baseOffset() + 1, bytes);
                }
                fill(partitionResponse, result, failure, topicName, ctx);
                return null;
            }));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
        if (acks == Acks.NONE && acksValid) {
            return all.thenApply(v -> null);
        }
        return all.thenApply(v -> {
            // After the fsyncs, before the answer: a broker whose lease may have run out meanwhile (a stop,
            // a pause) acknowledges nothing. The bytes may stay in the log; the next owner's recovery keeps
            // them only if they precede its epoch, like any unacknowledged write.
            if (!mayAcknowledge.getAsBoolean()) {
                for (ProduceResponseData.TopicProduceResponse t : response.responses()) {
                    for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
                        if (p.errorCode() == Errors.NONE.code()) {
                            p.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                                    .setBaseOffset(-1)
                                    .setLogStartOffset(-1)
                                    .setLogAppendTimeMs(-1)
                                    .setErrorMessage(fenced(t.name(), p.index()).getMessage());
                        }
                    }
                }
            }
            return response;
        });
    }

    private static StorageException fenced(String topic, int partition) {
        return new StorageException(
                StorageException.Kind.NOT_OWNED,
                topic + "-" + partition + ": this broker's lease may have expired (self-fenced); nothing acknowledged");
    }

    /** A partition's batches that passed the per-partition checks, waiting for the transaction checks and the append. */
    private record Accepted(
            ProduceResponseData.PartitionProduceResponse response, String topic, int partition, ByteBuffer batches) {}

    private static int maxMessageBytes(TopicInfo topic) {
        String set = topic.config().otherConfigs().get(MAX_MESSAGE_BYTES);
        return set == null ? DEFAULT_MAX_MESSAGE_BYTES : Integer.parseInt(set);
    }

    /** The largest batch's size by the headers' length fields; a truncated tail is left for the engine's validation to reject. */
    static int largestBatch(ByteBuffer batches) {
        int largest = 0;
        int pos = batches.position();
        while (batches.limit() - pos >= BATCH_PREFIX) {
            int length = batches.getInt(pos + LENGTH_OFFSET);
            if (length < 0) {
                break;
            }
            long size = (long) BATCH_PREFIX + length;
            largest = (int) Math.max(largest, Math.min(size, Integer.MAX_VALUE));
            pos += (int) Math.min(size, Integer.MAX_VALUE - pos);
            if (size > Integer.MAX_VALUE - BATCH_PREFIX) {
                break;
            }
        }
        return largest;
    }

    private static void fill(
            ProduceResponseData.PartitionProduceResponse out,
            AppendResult result,
            Throwable failure,
            String topicName,
            RequestContext ctx) {
        // Each partition response is written by exactly one future; allOf publishes them to the reader.
        if (failure == null) {
            out.setBaseOffset(result.baseOffset())
                    .setLogStartOffset(result.logStartOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs());
            return;
        }
        Errors error = ErrorMapping.toKafka(failure);
        if (error == Errors.UNKNOWN_SERVER_ERROR || error == Errors.KAFKA_STORAGE_ERROR) {
            LOG.warn(
                    "produce to {}-{} from client {} failed",
                    topicName,
                    out.index(),
                    ctx.clientId(),
                    ErrorMapping.unwrap(failure));
        }
        out.setErrorCode(error.code())
                .setErrorMessage(ErrorMapping.unwrap(failure).getMessage());
    }
}
