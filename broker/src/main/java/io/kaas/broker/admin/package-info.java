/**
 * The admin listener (loopback by default): GET /metrics, /healthz and /readyz. Readiness says which partitions
 * are not ready and why.
 */
package io.kaas.broker.admin;
