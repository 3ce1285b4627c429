package io.kaas.broker.api;

import io.kaas.broker.telemetry.ClientTelemetry;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.GetTelemetrySubscriptionsRequest;

/**
 * GetTelemetrySubscriptions (KIP-714): the metrics, push interval and compression types of the
 * client-metrics subscriptions that match the client, from Apache's ClientMetricsManager ({@link ClientTelemetry});
 * a client without an instance id (the zero id) is given one. A failure answers INVALID_REQUEST, as Apache's
 * KafkaApis does.
 */
public final class GetTelemetrySubscriptionsHandler implements ApiHandler<GetTelemetrySubscriptionsRequestData> {
    private final ClientTelemetry telemetry;

    public GetTelemetrySubscriptionsHandler(ClientTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, GetTelemetrySubscriptionsRequestData request) {
        ApiMessage response;
        try {
            response = telemetry.subscriptionsFor(ctx, request);
        } catch (RuntimeException e) {
            response = new GetTelemetrySubscriptionsRequest(request, ctx.apiVersion())
                    .getErrorResponse(0, Errors.INVALID_REQUEST.exception())
                    .data();
        }
        return CompletableFuture.completedFuture(response);
    }
}
