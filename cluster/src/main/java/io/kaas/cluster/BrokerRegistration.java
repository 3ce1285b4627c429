package io.kaas.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A live broker as the store lists it: its id, the address clients reach it at (its first advertised listener),
 * and every listener it advertises in Kafka's syntax ({@code NAME://host:port}), so another broker reaches it on
 * the inter-broker listener (Apache's {@code inter.broker.listener.name}). A registration written before brokers
 * registered their listeners has none ({@code endpoints} empty). Unknown fields are ignored, so a later build may
 * add some.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BrokerRegistration(int brokerId, String host, int port, List<String> endpoints) {
    public BrokerRegistration {
        Objects.requireNonNull(host, "host");
        if (brokerId < 0) {
            throw new IllegalArgumentException("broker id must not be negative, got " + brokerId);
        }
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    public BrokerRegistration(int brokerId, String host, int port) {
        this(brokerId, host, port, List.of());
    }

    /** The advertised endpoint of listener {@code listenerName}, when this broker registered one. */
    public Optional<Endpoint> endpoint(String listenerName) {
        for (String e : endpoints) {
            Endpoint parsed = Endpoint.parse(e);
            if (parsed.listenerName().equals(listenerName)) {
                return Optional.of(parsed);
            }
        }
        return Optional.empty();
    }
}
