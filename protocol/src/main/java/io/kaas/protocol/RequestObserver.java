package io.kaas.protocol;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** Told of every answered request (the broker's metrics); runs on whichever thread completed it, so it must be cheap. */
public interface RequestObserver {
    RequestObserver NONE = (api, error, queueNanos, handleNanos, totalNanos) -> {};

    /**
     * The three stages add up to {@code totalNanos}: queue, handle, then the wait after the handler returned
     * ({@code totalNanos - queueNanos - handleNanos}: an acks=all Produce's fsync, a Fetch's long poll), so a slow
     * request shows which stage it was slow in.
     *
     * @param error       the request-level outcome: NONE, or the error its whole response carries
     * @param queueNanos  from decoding to a handler thread picking it up
     * @param handleNanos the handler's own run (e.g. Produce's appends), until it returned
     * @param totalNanos  from decoding to the response being ready (fsync waits included)
     */
    void answered(ApiKeys api, Errors error, long queueNanos, long handleNanos, long totalNanos);
}
