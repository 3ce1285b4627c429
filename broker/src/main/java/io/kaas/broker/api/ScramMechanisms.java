package io.kaas.broker.api;

import java.util.Optional;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/** The wire's SCRAM mechanism byte (1 = SHA-256, 2 = SHA-512) and kafka-clients' mechanism. */
final class ScramMechanisms {
    private ScramMechanisms() {}

    static Optional<ScramMechanism> fromType(byte type) {
        for (ScramMechanism m : ScramMechanism.values()) {
            if (m.type() == type) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
