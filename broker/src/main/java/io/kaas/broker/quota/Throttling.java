package io.kaas.broker.quota;

import io.kaas.broker.security.ClientSession;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Set;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Where a request meets its client's quotas, once its response is ready: Produce counts the request's
 * bytes, Fetch the records it returns, every API but the handshake ones its handler time (KIP-124).
 * A client over quota gets {@code throttle_time_ms} in its response, which is sent at once, and its
 * connection is then read no more for that long (KIP-219: the client also holds back on its own).
 */
public final class Throttling {
    /** Answered without counting against request_percentage (Apache exempts them so a throttled client can still connect). */
    private static final Set<ApiKeys> EXEMPT = Set.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);
    private static final ClassValue<MethodHandle> THROTTLE_SETTER = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            try {
                return MethodHandles.publicLookup().findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class));
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
    public boolean active() {
        return !quotas.none();
    }

    /**
     * Records the request against its client's quotas; when over, sets the response's throttle time and mutes the session.
     *
     * @param requestBytes the request's size on the wire
     * @param handlerNanos time the handler ran on a request-handler thread
     */
    public void apply(ApiKeys api, ClientSession session, String user, String clientId, int requestBytes, long handlerNanos,
                      ApiMessage response) {
        if (quotas.none() || response == null) {
            return;
        }
        long now = System.currentTimeMillis();
        long ms = 0;
        if (api == ApiKeys.PRODUCE) {
            ms = quotas.record(QuotaType.PRODUCE, user, clientId, requestBytes, now);
        } else if (api == ApiKeys.FETCH && response instanceof FetchResponseData fetch) {
            ms = quotas.record(QuotaType.FETCH, user, clientId, recordBytes(fetch), now);
        }
        if (!EXEMPT.contains(api)) {
            // Percent of one thread: nanoseconds per second × 100 (Apache's nanosToPercentage).
            ms = Math.max(ms, quotas.record(QuotaType.REQUEST, user, clientId, handlerNanos * 100.0 / 1_000_000_000L, now));
        }
        if (ms <= 0) {
            return;
        }
        int throttle = (int) Math.min(ms, Integer.MAX_VALUE);
        MethodHandle setter = THROTTLE_SETTER.get(response.getClass());
        if (setter != null) {
            try {
                setter.invoke(response, throttle);
            } catch (Throwable e) {
                throw new IllegalStateException("cannot set throttle_time_ms on " + response.getClass().getSimpleName(), e);
            }
        }
        if (session != null) {
            session.muteFor(throttle);
        }
    }

    private static long recordBytes(FetchResponseData fetch) {
        long bytes = 0;
        for (FetchResponseData.FetchableTopicResponse t : fetch.responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                if (p.records() != null) {
                    bytes += p.records().sizeInBytes();
                }
            }
        }
        return bytes;
    }
}
