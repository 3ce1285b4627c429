package io.kaas.protocol;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What {@link RequestInvoker} applies to every answer: the client quotas (KIP-13, KIP-124), implemented by the broker.
 * A request over a quota gets {@code throttle_time_ms} in its response and its connection muted.
 */
public interface RequestThrottle {
    /** Whether any quota is set (false: {@link #apply} would do nothing). */
    boolean active();

    /**
     * Records the request against its client's quotas; when over, sets the response's throttle time and mutes
     * {@code session}.
     *
     * @param requestBytes the request's size on the wire
     * @param handlerNanos time the handler ran on a request-handler thread
     * @param response     the response about to be sent, null when none is (acks=0 Produce)
     */
    void apply(
            ApiKeys api,
            MutableConnection session,
            String user,
            String clientId,
            int requestBytes,
            long handlerNanos,
            ApiMessage response);
}
