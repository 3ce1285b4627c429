/**
 * Prometheus metrics (client_java 1.x), one registry per broker: request counts and latencies, per-topic
 * traffic, the engine's fsync and append figures through core-storage's EngineObserver seam, and gauges read
 * from lock-free snapshots at scrape time. Nothing here takes a partition lock.
 */
package io.kaas.broker.metrics;
