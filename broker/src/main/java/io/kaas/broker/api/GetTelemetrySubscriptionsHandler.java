package io.kaas.broker.api;

import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * GetTelemetrySubscriptions (KIP-714): "no subscription". kafka-clients 3.7+ ask every broker for the
 * metrics it wants pushed and log a warning when the API is missing; an empty requested-metrics list
 * tells them to push nothing and ask again after the push interval, so PushTelemetry never comes.
 * A client without an instance id (the zero id) gets a new one, as KIP-714 says the broker assigns it.
 */
public final class GetTelemetrySubscriptionsHandler implements ApiHandler<GetTelemetrySubscriptionsRequestData> {
    /** Apache's default telemetry push interval (5 minutes): how soon a client asks again. */
    static final int PUSH_INTERVAL_MS = 300_000;
    /** Apache's default telemetry.max.bytes. */
    static final int TELEMETRY_MAX_BYTES = 1024 * 1024;

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, GetTelemetrySubscriptionsRequestData request) {
        Uuid id =
                request.clientInstanceId() == null || request.clientInstanceId().equals(Uuid.ZERO_UUID)
                        ? Uuid.randomUuid()
                        : request.clientInstanceId();
        return CompletableFuture.completedFuture(new GetTelemetrySubscriptionsResponseData()
                .setClientInstanceId(id)
                .setSubscriptionId(0)
                .setAcceptedCompressionTypes(new ArrayList<>())
                .setPushIntervalMs(PUSH_INTERVAL_MS)
                .setTelemetryMaxBytes(TELEMETRY_MAX_BYTES)
                .setDeltaTemporality(true)
                .setRequestedMetrics(new ArrayList<>()));
    }
}
