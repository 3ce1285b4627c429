package io.kaas.broker.group.streams;

import java.util.Map;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * A StreamsGroupHeartbeat's answer and the internal topics (repartition, changelog) the group's topology still misses,
 * which the caller creates, as Apache's {@code StreamsGroupHeartbeatResult}.
 */
public record StreamsHeartbeat(
        StreamsGroupHeartbeatResponseData response,
        Map<String, CreateTopicsRequestData.CreatableTopic> topicsToCreate) {
    public StreamsHeartbeat {
        topicsToCreate = Map.copyOf(topicsToCreate);
    }

    public static StreamsHeartbeat error(Errors e, String message) {
        return new StreamsHeartbeat(
                new StreamsGroupHeartbeatResponseData()
                        .setErrorCode(e.code())
                        .setErrorMessage(message == null ? e.message() : message),
                Map.of());
    }
}
