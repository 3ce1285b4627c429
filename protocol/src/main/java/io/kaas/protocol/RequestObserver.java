package io.kaas.protocol;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** Told of every answered request (the broker's metrics); runs on whichever thread completed it, so it must be cheap. */
public interface RequestObserver {
    RequestObserver NONE = (api, error, queueNanos, totalNanos) -> {};

    /**
     * @param error      the request-level outcome: NONE, or the error its whole response carries
     * @param queueNanos from decoding to a handler thread picking it up
     * @param totalNanos from decoding to the response being ready (fsync waits included)
     */
    void answered(ApiKeys api, Errors error, long queueNanos, long totalNanos);
}
