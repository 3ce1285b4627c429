package io.kaas.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One Kafka API. Runs on a request-handler thread (never the event loop), so it may do file I/O, but
 * it must not wait for an fsync or another request: anything slow (acks=all appends, Fetch long-polls,
 * JoinGroup rebalances) is returned as a future completed later by whoever finishes the work.
 * A future completing with {@code null} means "send no response" (acks=0 Produce).
 */
@FunctionalInterface
public interface ApiHandler<Q extends ApiMessage> {
    CompletableFuture<ApiMessage> handle(RequestContext ctx, Q request);
}
