package io.kaas.broker.telemetry;

import io.kaas.protocol.ClientSession;
import io.kaas.protocol.RequestContext;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.message.PushTelemetryResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.requests.GetTelemetrySubscriptionsRequest;
import org.apache.kafka.common.requests.PushTelemetryRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.ClientMetricsManager;
import org.apache.kafka.server.metrics.ClientTelemetryExporterPlugin;

/**
 * Client telemetry (KIP-714) served natively: Apache's own {@link ClientMetricsManager} answers
 * GetTelemetrySubscriptions and PushTelemetry (subscription matching on client_instance_id, client_id,
 * client_software_name/version, client_source_address/port; its errors: UNKNOWN_SUBSCRIPTION_ID,
 * THROTTLING_QUOTA_EXCEEDED for a push before the interval, INVALID_REQUEST after a terminating push,
 * UNSUPPORTED_COMPRESSION_TYPE, TELEMETRY_TOO_LARGE) over the subscriptions of {@link ClientMetricsSubscriptions},
 * and hands accepted payloads to {@link PushedMetrics}, where Apache needs a ClientTelemetryExporter plug-in.
 * Each call is given Apache's request context, built from kaas's (the connection's id is its remote address and
 * session; the client's software from its ApiVersions). A connection's client instance is forgotten when it closes,
 * as Apache's disconnect listener does. Owns the manager's reaper thread ({@code client-metrics-reaper}), its
 * sensors and the pushed metrics' place in the broker's registry; {@link #close} ends them.
 */
public final class ClientTelemetry implements AutoCloseable {
    /** Apache's default {@code telemetry.max.bytes}. */
    public static final int TELEMETRY_MAX_BYTES = 1024 * 1024;

    private final Metrics sensors = new Metrics();
    private final ClientMetricsManager manager;
    private final ClientMetricsSubscriptions subscriptions;
    private final PushedMetrics pushed;
    private final PrometheusRegistry registry;

    /** Reads the subscriptions and exposes the pushed metrics in {@code registry} until {@link #close}. */
    public ClientTelemetry(java.nio.file.Path subscriptionsFile, PrometheusRegistry registry) {
        this.pushed = new PushedMetrics(System::currentTimeMillis);
        this.registry = registry;
        ClientTelemetryExporterPlugin plugin = new ClientTelemetryExporterPlugin();
        plugin.add(pushed);
        this.manager = new ClientMetricsManager(plugin, TELEMETRY_MAX_BYTES, Time.SYSTEM, sensors);
        this.subscriptions = new ClientMetricsSubscriptions(subscriptionsFile, manager::updateSubscription);
        registry.register(pushed);
    }

    public ClientMetricsSubscriptions subscriptions() {
        return subscriptions;
    }

    public PushedMetrics pushed() {
        return pushed;
    }

    public GetTelemetrySubscriptionsResponseData subscriptionsFor(
            RequestContext ctx, GetTelemetrySubscriptionsRequestData request) {
        subscriptions.refresh();
        return manager.processGetTelemetrySubscriptionRequest(
                        new GetTelemetrySubscriptionsRequest(request, ctx.apiVersion()), apacheContext(ctx))
                .data();
    }

    public PushTelemetryResponseData push(RequestContext ctx, PushTelemetryRequestData request) {
        return manager.processPushTelemetryRequest(
                        new PushTelemetryRequest(request, ctx.apiVersion()), apacheContext(ctx))
                .data();
    }

    private org.apache.kafka.common.requests.RequestContext apacheContext(RequestContext ctx) {
        ClientSession session = ctx.session();
        String connectionId = ctx.remote() + "-" + Integer.toHexString(System.identityHashCode(session));
        if (session != null) {
            session.onCloseOnce(
                    connectionId, () -> manager.connectionDisconnectListener().onDisconnect(connectionId));
        }
        Optional<Integer> port =
                ctx.remote() instanceof InetSocketAddress i ? Optional.of(i.getPort()) : Optional.empty();
        ClientInformation software = session == null
                ? ClientInformation.EMPTY
                : new ClientInformation(session.softwareName(), session.softwareVersion());
        return new org.apache.kafka.common.requests.RequestContext(
                new RequestHeader(ctx.api(), ctx.apiVersion(), ctx.clientId(), ctx.correlationId()),
                connectionId,
                ctx.clientAddress(),
                port,
                ctx.principal(),
                ListenerName.normalised(ctx.listenerName()),
                ctx.securityProtocol(),
                software,
                false);
    }

    @Override
    public void close() throws Exception {
        registry.unregister(pushed);
        try {
            manager.close();
        } finally {
            sensors.close();
        }
    }
}
