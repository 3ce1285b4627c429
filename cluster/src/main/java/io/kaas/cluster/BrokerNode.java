package io.kaas.cluster;

/** This broker as clients see it: the advertised address every Metadata/FindCoordinator answer names. */
public record BrokerNode(int nodeId, String host, int port, String clusterId) {}
