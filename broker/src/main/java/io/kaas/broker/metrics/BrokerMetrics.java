package io.kaas.broker.metrics;

import io.kaas.broker.api.TrafficObserver;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.KafkaServer;
import io.kaas.protocol.RequestObserver;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.format.CodecTripwire;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * One broker's metrics (Prometheus client_java 1.x), in a registry of its own so that brokers sharing
 * a JVM (tests) do not share series. The parts are handed to what they watch: {@link #engine()} to
 * the storage engine when it is built, {@link #requests()} to the request invoker, {@link #traffic()}
 * to Produce and Fetch; {@link #watch} registers the scrape-time gauges once the broker is wired.
 */
public final class BrokerMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final boolean perPartition;
    private final TopicTraffic traffic;
    private final RequestMetrics requests;
    private final StorageMetrics storage;
    private final CodecMetrics codec;

    public BrokerMetrics(boolean perPartition) {
        this.perPartition = perPartition;
        this.traffic = new TopicTraffic(registry);
        this.requests = new RequestMetrics(registry);
        this.codec = new CodecMetrics(registry);
        this.storage = new StorageMetrics(registry, codec);
        JvmMetrics.builder().register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public EngineObserver engine() {
        return storage;
    }

    /** The byte-opacity tripwires, for the broker's own decode sites (the engine's reach them through {@link #engine()}). */
    public CodecTripwire codec() {
        return codec;
    }

    public RequestObserver requests() {
        return requests;
    }

    public TrafficObserver traffic() {
        return traffic;
    }

    /** A retention pass ran and removed {@code segmentsRemoved} segments. */
    public void retentionRan(int segmentsRemoved) {
        storage.retentionRan(segmentsRemoved);
    }

    /** Registers the gauges read at scrape time; call once, when the broker's parts exist. */
    public void watch(StorageEngine engine, GroupCoordinator groups, KafkaServer server) {
        StateGauges.register(registry, engine, groups, server, perPartition);
    }
}
