package io.kaas.broker.api;

import io.kaas.broker.telemetry.ClientTelemetry;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.PushTelemetryRequest;

/**
 * PushTelemetry (KIP-714): a client's OTLP metrics, checked by Apache's ClientMetricsManager against its
 * subscription ({@link ClientTelemetry}: UNKNOWN_SUBSCRIPTION_ID, THROTTLING_QUOTA_EXCEEDED before the push
 * interval, INVALID_REQUEST after a terminating push, UNSUPPORTED_COMPRESSION_TYPE, TELEMETRY_TOO_LARGE,
 * INVALID_RECORD when the payload is not OTLP) and exposed on {@code /metrics}. A failure answers INVALID_REQUEST,
 * as Apache's KafkaApis does.
 */
public final class PushTelemetryHandler implements ApiHandler<PushTelemetryRequestData> {
    private final ClientTelemetry telemetry;

    public PushTelemetryHandler(ClientTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, PushTelemetryRequestData request) {
        ApiMessage response;
        try {
            response = telemetry.push(ctx, request);
        } catch (RuntimeException e) {
            response = new PushTelemetryRequest(request, ctx.apiVersion())
                    .getErrorResponse(0, Errors.INVALID_REQUEST.exception())
                    .data();
        }
        return CompletableFuture.completedFuture(response);
    }
}
