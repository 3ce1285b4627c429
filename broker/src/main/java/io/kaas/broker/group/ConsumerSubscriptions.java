package io.kaas.broker.group;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * Reads the topic list out of a consumer-protocol member's subscription (the JoinGroup metadata) with
 * kafka-clients' own codec. Only OffsetDelete needs it (GROUP_SUBSCRIBED_TO_TOPIC); a subscription that
 * does not parse counts as subscribing to nothing.
 */
final class ConsumerSubscriptions {
    private ConsumerSubscriptions() {}

    static List<String> topics(byte[] metadata) {
        try {
            return ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata))
                    .topics();
        } catch (RuntimeException e) {
            return List.of();
        }
    }
}
