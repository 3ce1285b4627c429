package io.kaas.broker.quota;

import io.kaas.protocol.MutableConnection;
import io.kaas.protocol.RequestThrottle;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Where a request meets its client's quotas, once its response (an error response too) is ready, as Apache's KafkaApis: Produce
 * counts the request's bytes, every API but the handshake ones its handler time (KIP-124). A client over
 * quota gets {@code throttle_time_ms} in its response, which is sent at once, and its connection is then
 * read no more for that long (KIP-219: the client also holds back on its own); an acks=0 Produce has no
 * response, so it is only muted. Fetch is different ({@link #throttleFetch}): it is measured before its
 * response is chosen, since a throttled fetch answers with no records at all.
 */
public final class Throttling implements RequestThrottle {
    /** Answered without counting against request_percentage (Apache exempts them so a throttled client can still connect). */
    private static final Set<ApiKeys> EXEMPT =
            Set.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

    private static final ClassValue<MethodHandle> THROTTLE_SETTER = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            try {
                return MethodHandles.publicLookup()
                        .findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class));
            } catch (ReflectiveOperationException e) {
                return null; // this response has no throttle field (ApiVersions v0, ...)
            }
        }
    };

    private final ClientQuotas quotas;

    public Throttling(ClientQuotas quotas) {
        this.quotas = quotas;
    }

    /** Is any quota set? (Nothing is measured otherwise.) */
    @Override
    public boolean active() {
        return !quotas.none();
    }

    /**
     * Records the request against its client's quotas; when over, sets the response's throttle time and mutes the session.
     *
     * @param requestBytes the request's size on the wire
     * @param handlerNanos time the handler ran on a request-handler thread
     */
    @Override
    public void apply(
            ApiKeys api,
            MutableConnection session,
            String user,
            String clientId,
            int requestBytes,
            long handlerNanos,
            ApiMessage response) {
        if (quotas.none() || api == ApiKeys.FETCH) {
            return; // FetchHandler called throttleFetch
        }
        long now = System.currentTimeMillis();
        long ms = 0;
        if (api == ApiKeys.PRODUCE) {
            ms = quotas.record(QuotaType.PRODUCE, user, clientId, requestBytes, now);
        }
        if (!EXEMPT.contains(api)) {
            ms = Math.max(ms, quotas.record(QuotaType.REQUEST, user, clientId, percentOfOneThread(handlerNanos), now));
        }
        if (ms <= 0) {
            return;
        }
        int throttle = (int) Math.min(ms, Integer.MAX_VALUE);
        if (session != null) {
            session.muteFor(throttle);
        }
        if (response == null) {
            return; // acks=0 Produce: nothing is sent, the mute is the whole throttle (as Apache)
        }
        MethodHandle setter = THROTTLE_SETTER.get(response.getClass());
        if (setter != null) {
            try {
                setter.invoke(response, throttle);
            } catch (Throwable e) {
                throw new IllegalStateException(
                        "cannot set throttle_time_ms on " + response.getClass().getSimpleName(), e);
            }
        }
    }

    /**
     * The most a consumer's Fetch may return (Apache caps fetch.max.bytes with it): what its
     * consumer_byte_rate lets it take in one quota window after taking nothing, so that a fetch is
     * never throttled by its own size alone; {@link Integer#MAX_VALUE} without a quota.
     */
    public int maxFetchBytes(String user, String clientId) {
        if (quotas.none()) {
            return Integer.MAX_VALUE;
        }
        return (int) Math.min(Integer.MAX_VALUE, quotas.maxValueInWindow(QuotaType.FETCH, user, clientId));
    }

    /**
     * Fetch's quotas, as Apache's {@code handleFetchRequest}: records the response's size against
     * consumer_byte_rate and the handler time against request_percentage; when either is over, takes the
     * bytes back, mutes the session and returns the throttle time (the larger of the two), and the caller
     * answers with no records ({@code FetchContext.throttled}). 0: send the response as it is.
     */
    public int throttleFetch(
            MutableConnection session, String user, String clientId, long responseBytes, long handlerNanos) {
        if (quotas.none()) {
            return 0;
        }
        long now = System.currentTimeMillis();
        long request = quotas.record(QuotaType.REQUEST, user, clientId, percentOfOneThread(handlerNanos), now);
        long bandwidth = quotas.record(QuotaType.FETCH, user, clientId, responseBytes, now);
        long ms = Math.max(request, bandwidth);
        if (ms <= 0) {
            return 0;
        }
        // Whichever quota throttled, the records are not sent: they must not count (Apache's unrecordQuotaSensor).
        quotas.unrecord(QuotaType.FETCH, user, clientId, responseBytes, now);
        int throttle = (int) Math.min(ms, Integer.MAX_VALUE);
        if (session != null) {
            session.muteFor(throttle);
        }
        return throttle;
    }

    /** Percent of one thread: nanoseconds per second × 100 (Apache's nanosToPercentage). */
    private static double percentOfOneThread(long nanos) {
        return nanos * 100.0 / 1_000_000_000L;
    }
}
