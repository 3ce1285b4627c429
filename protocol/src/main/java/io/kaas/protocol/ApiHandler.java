package io.kaas.protocol;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
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

    /**
     * The request handled on the calling thread, a network event loop, when that can be done without
     * blocking it (no lock waited for, no file opened, no fsync, no remote call); or null, with nothing
     * done, and the dispatcher runs {@link #handle} on the request-handler pool. Saves the two thread
     * wake-ups of the hand-off (event loop to handler and back) where the work is a few microseconds.
     * Whatever part turns out to need a blocking thread after all may go to {@code handlerPool}; the
     * returned {@link Started#handled} completes once it has run.
     */
    default Started startOnNetworkThread(RequestContext ctx, Q request, Executor handlerPool) {
        return null;
    }

    /**
     * A request started by {@link #startOnNetworkThread}: {@code handled} completes when its synchronous
     * work (Produce's appends) is done, {@code response} when its answer is ready.
     */
    record Started(CompletableFuture<?> handled, CompletableFuture<ApiMessage> response) {}
}
