package io.kaas.broker.api;

import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListPartitionReassignments (KIP-455): the moves {@link AlterPartitionReassignmentsHandler} (or {@code kaas assign})
 * started that have not finished — a pinned partition its pinned broker does not hold yet
 * ({@link PartitionPins#inProgress}). Shown as Apache shows a move from one broker to another: replicas the target
 * then the broker serving it meanwhile, adding the target, removing that broker. Only the topics and partitions
 * asked for when the request names some (unknown ones are left out, as Apache does). A broker on its own has none.
 */
public final class ListPartitionReassignmentsHandler implements ApiHandler<ListPartitionReassignmentsRequestData> {
    private final PartitionPins pins;

    /** {@code pins}: the shared cluster's, or null for a broker on its own. */
    public ListPartitionReassignmentsHandler(PartitionPins pins) {
        this.pins = pins;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListPartitionReassignmentsRequestData request) {
        ListPartitionReassignmentsResponseData response =
                new ListPartitionReassignmentsResponseData().setErrorMessage(null);
        if (pins == null) {
            return CompletableFuture.completedFuture(response);
        }
        Predicate<TopicPartition> asked = tp -> true;
        if (request.topics() != null) {
            Map<String, Set<Integer>> named = new HashMap<>();
            request.topics()
                    .forEach(t -> named.computeIfAbsent(t.name(), n -> new HashSet<>())
                            .addAll(t.partitionIndexes()));
            asked = tp -> named.getOrDefault(tp.topic(), Set.of()).contains(tp.partition());
        }
        List<PartitionPins.Move> moves;
        try {
            moves = pins.inProgress(asked);
        } catch (CoordinationException e) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                    .setErrorMessage("the coordination store did not answer: " + e.getMessage()));
        }
        Map<String, OngoingTopicReassignment> byTopic = new LinkedHashMap<>();
        for (PartitionPins.Move m : moves) {
            List<Integer> replicas = new ArrayList<>(List.of(m.target()));
            List<Integer> removing = new ArrayList<>();
            m.holder().ifPresent(h -> {
                replicas.add(h);
                removing.add(h);
            });
            byTopic.computeIfAbsent(m.tp().topic(), n -> {
                        OngoingTopicReassignment t = new OngoingTopicReassignment().setName(n);
                        response.topics().add(t);
                        return t;
                    })
                    .partitions()
                    .add(new OngoingPartitionReassignment()
                            .setPartitionIndex(m.tp().partition())
                            .setReplicas(replicas)
                            .setAddingReplicas(new ArrayList<>(List.of(m.target())))
                            .setRemovingReplicas(removing));
        }
        return CompletableFuture.completedFuture(response);
    }
}
