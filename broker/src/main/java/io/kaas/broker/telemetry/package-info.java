/**
 * Client metrics (KIP-714): the subscriptions set as ConfigResource CLIENT_METRICS, Apache's
 * ClientMetricsManager answering GetTelemetrySubscriptions and PushTelemetry over them, and the pushed
 * OTLP metrics exposed on the broker's Prometheus endpoint.
 */
package io.kaas.broker.telemetry;
