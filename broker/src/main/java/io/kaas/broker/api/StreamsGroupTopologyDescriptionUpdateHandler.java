package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * StreamsGroupTopologyDescriptionUpdate: a Kafka Streams member, asked by its heartbeat answer
 * ({@code TopologyDescriptionRequired}), sends its topology's processors, stores, sources and sinks; the group keeps
 * it for StreamsGroupDescribe. Apache 4.4 serves this only with a topology-description plug-in configured; kaas
 * stores the description itself. READ on the group is checked before (request-level authorization).
 */
public final class StreamsGroupTopologyDescriptionUpdateHandler
        implements ApiHandler<StreamsGroupTopologyDescriptionUpdateRequestData> {
    private final GroupCoordinator groups;

    public StreamsGroupTopologyDescriptionUpdateHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(
            RequestContext ctx, StreamsGroupTopologyDescriptionUpdateRequestData request) {
        return CompletableFuture.completedFuture(groups.streamsTopologyDescriptionUpdate(request));
    }
}
