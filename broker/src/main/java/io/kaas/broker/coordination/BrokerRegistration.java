package io.kaas.broker.coordination;

import java.util.Objects;

/** A live broker as the store lists it: its id and the address clients reach it at. */
public record BrokerRegistration(int brokerId, String host, int port) {
    public BrokerRegistration {
        Objects.requireNonNull(host, "host");
        if (brokerId < 0) {
            throw new IllegalArgumentException("broker id must not be negative, got " + brokerId);
        }
    }
}
