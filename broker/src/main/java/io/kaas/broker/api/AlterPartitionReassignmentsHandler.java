package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.cluster.Assignment;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterPartitionReassignments (KIP-455), what Apache's {@code kafka-reassign-partitions --execute/--cancel} send.
 * kaas keeps one copy of each partition, on the shared volume, served by one broker; so a target replica list
 * must name exactly one broker, and the partition is moved to it and pinned there — the pin {@code kaas assign}
 * writes ({@link PartitionPins}). The answer comes once the pin is written, as Apache's comes once its controller
 * has recorded the change; {@link ListPartitionReassignmentsHandler} shows the move until the broker holds the
 * partition. Null replicas cancel: the pin goes and a move still under way is called off. Checks and messages
 * follow Apache's {@code ReplicationControlManager}: unknown topic or partition, an empty list, a broker not
 * registered (here: not live), a broker named twice. A broker on its own (no {@code --coordinator}) answers as a
 * one-broker Apache cluster: itself is the only target (nothing to do), nothing is ever in progress.
 */
public final class AlterPartitionReassignmentsHandler implements ApiHandler<AlterPartitionReassignmentsRequestData> {
    private static final Logger LOG = LoggerFactory.getLogger(AlterPartitionReassignmentsHandler.class);

    private final PartitionPins pins;
    private final TopicCatalog topics;
    private final int brokerId;

    /** {@code pins}: the shared cluster's, or null for a broker on its own ({@code brokerId}, over {@code topics}). */
    public AlterPartitionReassignmentsHandler(PartitionPins pins, TopicCatalog topics, int brokerId) {
        this.pins = pins;
        this.topics = topics;
        this.brokerId = brokerId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterPartitionReassignmentsRequestData request) {
        AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setAllowReplicationFactorChange(request.allowReplicationFactorChange())
                .setErrorMessage(null);
        Map<String, Integer> counts;
        Set<Integer> live;
        Assignment current;
        try {
            counts = pins == null
                    ? topics.topics().stream().collect(Collectors.toMap(TopicInfo::name, TopicInfo::partitions))
                    : pins.topics();
            live = pins == null ? Set.of(brokerId) : pins.liveBrokers();
            current = pins == null ? Assignment.EMPTY : pins.assignment();
        } catch (CoordinationException e) {
            return CompletableFuture.completedFuture(unreachable(request, e));
        }
        // Checked first, written together below: partition → its answer (null: to be written).
        Map<TopicPartition, ApiError> answers = new LinkedHashMap<>();
        Map<Integer, List<TopicPartition>> toPin = new TreeMap<>();
        List<TopicPartition> toCancel = new ArrayList<>();
        for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : request.topics()) {
            for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                ApiError error = check(tp, p.replicas(), request.allowReplicationFactorChange(), counts, live, current);
                if (error == null && pins != null) {
                    if (p.replicas() == null) {
                        toCancel.add(tp);
                    } else {
                        toPin.computeIfAbsent(p.replicas().get(0), b -> new ArrayList<>())
                                .add(tp);
                    }
                }
                answers.put(tp, error == null ? ApiError.NONE : error);
            }
        }
        try {
            for (Map.Entry<Integer, List<TopicPartition>> e : toPin.entrySet()) {
                pins.pin(e.getValue(), e.getKey(), counts);
                LOG.info(
                        "{} moved to broker {} and pinned there (AlterPartitionReassignments)",
                        e.getValue(),
                        e.getKey());
            }
            if (!toCancel.isEmpty()) {
                pins.cancel(toCancel, counts);
                LOG.info("reassignment of {} cancelled: unpinned (AlterPartitionReassignments)", toCancel);
            }
        } catch (CoordinationException e) {
            ApiError failed = new ApiError(
                    Errors.REQUEST_TIMED_OUT, "the coordination store did not take the change: " + e.getMessage());
            toPin.values().forEach(l -> l.forEach(tp -> answers.put(tp, failed)));
            toCancel.forEach(tp -> answers.put(tp, failed));
        }
        Map<String, ReassignableTopicResponse> byTopic = new LinkedHashMap<>();
        answers.forEach((tp, error) -> byTopic.computeIfAbsent(tp.topic(), n -> {
                    ReassignableTopicResponse r = new ReassignableTopicResponse().setName(n);
                    response.responses().add(r);
                    return r;
                })
                .partitions()
                .add(new ReassignablePartitionResponse()
                        .setPartitionIndex(tp.partition())
                        .setErrorCode(error.error().code())
                        .setErrorMessage(error.isSuccess() ? null : error.message())));
        return CompletableFuture.completedFuture(response);
    }

    /** Why {@code tp} cannot go to {@code replicas} (null: cancel), or null when it can. Apache's checks, in its order. */
    private ApiError check(
            TopicPartition tp,
            List<Integer> replicas,
            boolean allowReplicationFactorChange,
            Map<String, Integer> counts,
            Set<Integer> live,
            Assignment current) {
        Integer count = counts.get(tp.topic());
        if (count == null) {
            return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find a topic named " + tp.topic() + ".");
        }
        if (tp.partition() < 0 || tp.partition() >= count) {
            return new ApiError(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "Unable to find partition " + tp.topic() + ":" + tp.partition() + ".");
        }
        if (replicas == null) {
            // A broker on its own never has a move under way; in a shared cluster, a pin is what can be cancelled.
            return current.pin(tp).isPresent()
                    ? null
                    : new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS, Errors.NO_REASSIGNMENT_IN_PROGRESS.message());
        }
        if (!allowReplicationFactorChange && replicas.size() != 1) {
            return new ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "The replication factor of " + tp.topic() + "-" + tp.partition() + " would change from 1 to "
                            + replicas.size() + ", and the request disallows changing it.");
        }
        if (replicas.isEmpty()) {
            return new ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes an empty replica list.");
        }
        List<Integer> sorted = new ArrayList<>(replicas);
        sorted.sort(Integer::compare);
        Map<Integer, Integer> seen = new HashMap<>();
        for (int b : sorted) {
            if (!live.contains(b)) {
                return new ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes broker " + b + ", but no such broker is registered.");
            }
            if (seen.merge(b, 1, Integer::sum) > 1) {
                return new ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes the broker " + b + " more than once.");
            }
        }
        if (replicas.size() > 1) {
            return new ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "kaas keeps one copy of each partition, on the volume its brokers "
                            + "share, served by one broker: a reassignment names exactly one broker (the partition moves to it), got "
                            + replicas + " for " + tp.topic() + "-" + tp.partition() + ".");
        }
        return null;
    }

    private static AlterPartitionReassignmentsResponseData unreachable(
            AlterPartitionReassignmentsRequestData request, CoordinationException e) {
        String message = "the coordination store did not answer: " + e.getMessage();
        AlterPartitionReassignmentsResponseData r = new AlterPartitionReassignmentsResponseData()
                .setAllowReplicationFactorChange(request.allowReplicationFactorChange())
                .setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                .setErrorMessage(message);
        for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : request.topics()) {
            ReassignableTopicResponse tr = new ReassignableTopicResponse().setName(t.name());
            t.partitions()
                    .forEach(p -> tr.partitions()
                            .add(new ReassignablePartitionResponse()
                                    .setPartitionIndex(p.partitionIndex())
                                    .setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                                    .setErrorMessage(message)));
            r.responses().add(tr);
        }
        return r;
    }
}
