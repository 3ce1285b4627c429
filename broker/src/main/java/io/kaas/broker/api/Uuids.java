package io.kaas.broker.api;

import java.util.UUID;
import org.apache.kafka.common.Uuid;

/** Topic ids are {@link UUID} in the engine and {@link Uuid} on the wire: same 128 bits. */
public final class Uuids {
    private Uuids() {}

    public static Uuid toKafka(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    public static UUID toJava(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
